import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BridleError } from "./errors.js";
import { writeFileAtomicSync } from "./node/atomic-write.js";
import { isErrno } from "./node/errno.js";
import { userConfigFolder } from "./protected-paths.js";

/** The file, in the user's Bridle config folder, that holds the key approval envelopes are sealed with. */
const APPROVAL_SECRET_FILE = "approval-secret";

/** Fewer characters than this is not a key worth the name (a generated one has 64). */
const MIN_SECRET_LENGTH = 32;
/** More than this is not a key someone wrote down but some other file. */
const MAX_SECRET_BYTES = 4096;

export interface ApprovalSecretOptions {
  /** The folder to keep the secret in. Default `$XDG_CONFIG_HOME/bridle`, else `~/.config/bridle`. */
  readonly dir?: string;
}

/**
 * The key that seals approval envelopes when the application gives none: read from the user's config
 * folder, or generated there on first use (32 random bytes, hex, in a file of mode 0600 in a folder
 * created 0700). Anyone who can read it can forge an envelope this user's harness runs, so a file that
 * other users can read or write, that another user owns, or that is a symlink is refused
 * (`approval_secret_insecure`), as is one too short to be a key (`approval_secret_invalid`).
 * Two processes generating it at once agree on one key.
 */
export function loadOrCreateApprovalSecret(options: ApprovalSecretOptions = {}): string {
  const dir = options.dir ?? userConfigFolder();
  const path = join(dir, APPROVAL_SECRET_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = readSecret(path);
    if (existing !== undefined) return existing;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written whole under a temporary name, then linked into place: a reader never sees half a key, and
    // of two processes creating it at once, one link wins and both read the winner.
    writeFileAtomicSync(path, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, ifAbsent: true });
  }
  throw new BridleError("approval_secret_invalid", `${path} keeps disappearing while it is being created`);
}

/** The secret in `path`, or undefined when there is no such file. Checks the file it opened, not the path. */
function readSecret(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    if (isErrno(error, "ELOOP")) throw insecure(path, "it is a symbolic link");
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw insecure(path, "it is not a regular file");
    const uid = process.getuid?.();
    // Windows has no POSIX owner or mode bits to check; its ACLs come from the profile folder.
    if (uid !== undefined && stats.uid !== uid) {
      throw insecure(path, `it is owned by uid ${stats.uid}, not by this user (uid ${uid})`);
    }
    if (uid !== undefined && (stats.mode & 0o077) !== 0) {
      const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
      throw insecure(path, `its mode ${mode} lets other users read or change it; run: chmod 600 ${path}`);
    }
    if (stats.size > MAX_SECRET_BYTES) {
      throw new BridleError(
        "approval_secret_invalid",
        `${path} holds ${stats.size} bytes; an approval secret is at most ${MAX_SECRET_BYTES} (delete the file to have a new one generated)`,
      );
    }
    const secret = readFileSync(fd, "utf8").trim();
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new BridleError(
        "approval_secret_invalid",
        `${path} holds ${secret.length} characters; an approval secret needs at least ${MIN_SECRET_LENGTH} (delete the file to have a new one generated)`,
      );
    }
    return secret;
  } finally {
    closeSync(fd);
  }
}

function insecure(path: string, why: string): BridleError {
  return new BridleError(
    "approval_secret_insecure",
    `refusing the approval secret ${path}: ${why}. Whoever can read it can forge approvals.`,
  );
}
