import { basename } from "node:path";

/** The secret-path rule as data: what `isSecretPath` applies, for checks that reason about names (a glob). */
export interface SecretPathRules {
  /** Basenames (lowercase) that hold credentials. */
  readonly names: readonly string[];
  /** Basename prefixes (lowercase) of secret files: `.env.local`. */
  readonly namePrefixes: readonly string[];
  /** Basename suffixes (lowercase) of secret files: `prod.env`, `server.pem`. */
  readonly nameSuffixes: readonly string[];
  /** SSH private key files: `id_rsa`, `id_ed25519_sk`. */
  readonly keyFile: RegExp;
  /** Folders whose every file is secret. */
  readonly folders: readonly string[];
  /** Basenames that look secret but are templates, checked first. */
  readonly notSecret: readonly string[];
}

/**
 * Files that commonly hold credentials. Tools deny them by default; a workspace can opt out. The one list:
 * a check that reasons about names before they exist (a shell glob) derives its cases from it.
 */
export const SECRET_PATH_RULES: SecretPathRules = deepFreeze({
  names: [
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
  ],
  namePrefixes: [".env."],
  nameSuffixes: [".env", ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".asc", ".gpg"],
  keyFile: /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/,
  folders: [".ssh", ".aws", ".gnupg", ".docker"],
  notSecret: [".env.example", ".env.sample", ".env.template", ".env.dist"],
});

// Frozen: a policy every package reads must not be editable by one of them.
function deepFreeze(rules: SecretPathRules): SecretPathRules {
  for (const value of Object.values(rules)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(rules);
}

/** True when a path looks like it holds secrets: .env files, private keys, credential files. */
export function isSecretPath(path: string): boolean {
  const rules = SECRET_PATH_RULES;
  const name = basename(path).toLowerCase();
  if (rules.notSecret.includes(name)) return false;
  if (rules.names.includes(name)) return true;
  if (rules.namePrefixes.some((prefix) => name.startsWith(prefix))) return true;
  if (rules.nameSuffixes.some((suffix) => name.endsWith(suffix))) return true;
  if (rules.keyFile.test(name)) return true;
  const folders = path.split(/[\\/]/).slice(0, -1);
  return rules.folders.some((dir) => folders.includes(dir));
}
