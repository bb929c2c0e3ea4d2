import { basename } from "node:path";

// Files that commonly hold credentials. Tools deny them by default; a workspace can opt out.
const SECRET_NAMES = new Set([
  ".env",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  "credentials",
  "credentials.json",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  ".htpasswd",
  "secrets.json",
  "secrets.yaml",
  "secrets.yml",
]);
const SECRET_EXTENSIONS = [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".asc", ".gpg"];
const ENV_TEMPLATES = new Set([".env.example", ".env.sample", ".env.template", ".env.dist"]);
const SECRET_DIRS = [".ssh", ".aws", ".gnupg", ".docker"];

/** True when a path looks like it holds secrets: .env files, private keys, credential files. */
export function isSecretPath(path: string): boolean {
  const name = basename(path).toLowerCase();
  if (ENV_TEMPLATES.has(name)) return false;
  if (SECRET_NAMES.has(name)) return true;
  if (name.startsWith(".env.") || name.endsWith(".env")) return true;
  if (/^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/.test(name)) return true;
  if (SECRET_EXTENSIONS.some((ext) => name.endsWith(ext))) return true;
  const folders = path.split(/[\\/]/).slice(0, -1);
  return SECRET_DIRS.some((dir) => folders.includes(dir));
}
