// Keeps API keys out of this process's exec-time environment. /proc/<pid>/environ shows the environment a
// process was started with (changing process.env later does not change it) to every process of the same
// user, so a shell command could read OPENAI_API_KEY from /proc/$PPID/environ. When secrets are present,
// the CLI first wipes them from that memory in place (environ-scrub.ts: no second start). Where the wipe
// cannot be done and verified, it writes them to a private file and re-executes itself without them; the
// new image reads the file, deletes it, and holds the keys in process.env only (process memory, not
// /proc/<pid>/environ).
import {
  closeSync,
  constants,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { scrubEnviron } from "./environ-scrub.js";

const CHANNEL = "BRIDLE_SECRET_HANDOFF";

/** Names that hold credentials: provider keys and any other token the environment carries. */
export function isSecretName(name: string): boolean {
  return /(?:_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD|_PASSWD|_CREDENTIALS?)$/i.test(name);
}

/**
 * Run first: either receive the secrets handed over by the previous image, or hand them over and
 * re-execute (never returns then). Returns a warning when the secrets have to stay in the environment.
 */
export function handOffSecrets(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const channel = env[CHANNEL];
  if (channel !== undefined) {
    delete env[CHANNEL];
    receive(channel, env);
    return undefined;
  }
  const names = Object.keys(env).filter((name) => isSecretName(name) && env[name] !== undefined);
  if (names.length === 0) return undefined;
  // Only process.env is backed by the exec-time environment; another object has nothing there to wipe.
  if (env === process.env && scrubEnviron(names)) return undefined;
  if (typeof process.execve !== "function") {
    return `this Node (${process.version}) cannot re-execute itself (process.execve needs Node ≥ 22.15 or ≥ 23.11), so ${names.join(", ")} stay in this process's environment, readable in /proc/${process.pid}/environ by any command that runs outside a pid namespace`;
  }
  const dir = mkdtempSync(join(tmpdir(), "bridle-secrets-"));
  const file = join(dir, "env");
  const clean: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (names.includes(name)) secrets[name] = value;
    else clean[name] = value;
  }
  try {
    writeFileSync(file, JSON.stringify(secrets), { mode: 0o600, flag: "wx" });
    clean[CHANNEL] = file;
    // process.execArgv keeps the V8 flags of the bin's shebang (its heap sizes).
    process.execve(
      process.execPath,
      [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
      clean,
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `could not re-execute without ${names.join(", ")} in the environment (${(error as Error).message}); they stay readable in /proc/${process.pid}/environ by any command that runs outside a pid namespace`;
  }
  return undefined;
}

function receive(file: string, env: NodeJS.ProcessEnv): void {
  // Only the file handOffSecrets wrote: env/ in a bridle-secrets-* folder of the temporary directory,
  // opened without following links, owned by this user, readable by nobody else.
  const dir = dirname(file);
  if (dirname(dir) !== tmpdir() || !basename(dir).startsWith("bridle-secrets-") || basename(file) !== "env")
    return;
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) return;
    const secrets = JSON.parse(readFileSync(fd, "utf8")) as unknown;
    if (typeof secrets !== "object" || secrets === null) return;
    for (const [name, value] of Object.entries(secrets)) {
      if (isSecretName(name) && typeof value === "string") env[name] = value;
    }
  } catch {
    // a broken hand-over leaves the keys unset: the provider then says which one is missing
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(file);
      rmdirSync(dir);
    } catch {
      // already gone
    }
  }
}
