import { execFile } from "node:child_process";
import type { BigIntStats } from "node:fs";
import { lstat, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";

/** A git command that could not run or failed; the overlay treats the folder as having no usable git. */
export class GitError extends Error {
  override readonly name = "GitError";
  readonly code = "git_failed" as const;
}

// The repository is untrusted data: its config must not run programs or rewrite what we read. These
// settings switch off every config key that can execute something or transform content on the way out.
const NEUTRAL_CONFIG = [
  "core.fsmonitor=",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.attributesFile=/dev/null",
  "core.excludesFile=",
  "diff.external=",
  "diff.noprefix=false",
  "diff.mnemonicPrefix=false",
  "diff.relative=false",
  "color.ui=false",
  "status.relativePaths=false",
  "status.showUntrackedFiles=all",
  "core.quotePath=false",
  "protocol.allow=never",
];

// Config keys, under any driver name, that name a program git would run while reading (clean/smudge
// filters during status, textconv and external diff drivers during diff). Each one found is overridden
// with an empty value, which git treats as "no program".
const PROGRAM_KEY = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)$/i;

const MAX_OUTPUT = 32 * 1024 * 1024;

/** The environment git runs with: no system or global config, no prompts, no optional locks. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_PAGER: "cat",
    GIT_EXTERNAL_DIFF: "",
  };
}

/**
 * Runs git read-only in `cwd` with the repository's config neutralised, and returns its stdout as bytes.
 * `--no-ext-diff` and `--no-textconv` are added to the commands that honour them by the callers.
 */
export async function git(cwd: string, args: readonly string[], input?: string): Promise<Buffer> {
  const overrides = [...NEUTRAL_CONFIG, ...(await programKeys(cwd)).map((key) => `${key}=`)];
  return rawGit(cwd, [...overrides.flatMap((setting) => ["-c", setting]), ...args], input);
}

// What a commit adds to the neutral settings: no signing (gpg.program and its kin name programs), and
// no hooks even where a future git reads another hooks setting.
const COMMIT_CONFIG = ["commit.gpgSign=false", "gpg.program=", "gpg.ssh.program=", "gpg.x509.program="];

/**
 * Runs a writing git command (add, commit) with the repository's config neutralised as `git` does, no
 * signing and no hooks, and `identity` as author and committer.
 */
export async function writingGit(
  cwd: string,
  args: readonly string[],
  identity: GitIdentity,
): Promise<Buffer> {
  const settings = [...COMMIT_CONFIG, `user.name=${identity.name}`, `user.email=${identity.email}`];
  return git(cwd, [...settings.flatMap((setting) => ["-c", setting]), ...args]);
}

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/**
 * Who commits: the repository's own user.name and user.email where it sets them, else the user's global
 * ones (read with `git config --global --get`, which reads files and runs nothing), else undefined.
 */
export async function commitIdentity(cwd: string): Promise<GitIdentity | undefined> {
  const local = async (key: string) =>
    (await git(cwd, ["config", "--local", "--get", key]).catch(() => Buffer.alloc(0)))
      .toString("utf8")
      .trim();
  const global = (key: string) => userConfigValue(key);
  const name = (await local("user.name")) || (await global("user.name"));
  const email = (await local("user.email")) || (await global("user.email"));
  if (!name || !email || /[\0\n]/.test(name + email)) return undefined;
  return { name, email };
}

function userConfigValue(key: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
  for (const name of ["PATH", "HOME", "XDG_CONFIG_HOME"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return new Promise((resolve) => {
    execFile("git", ["config", "--global", "--get", key], { env, encoding: "utf8" }, (error, stdout) =>
      resolve(error ? "" : stdout.trim()),
    );
  });
}

/**
 * The program-naming keys of the repository's configuration (every scope git reads). Read before every
 * command, since a shell command may have changed the configuration; a configuration git cannot list
 * fails the command rather than running it unneutralised. Listing them is a git process of its own, so
 * the list is kept while the files it came from are provably unchanged (see `configSignature`).
 */
async function programKeys(cwd: string): Promise<readonly string[]> {
  const signature = await configSignature(cwd);
  const known = signature === undefined ? undefined : listedKeys.get(cwd);
  if (known && known.signature === signature) return known.keys;
  const names = (await rawGit(cwd, ["config", "--list", "--name-only", "-z"])).toString("utf8").split("\0");
  const keys = [...new Set(names.filter((name) => PROGRAM_KEY.test(name)))];
  // An include can pull in any file, whose changes no signature here would see: never kept then.
  if (signature !== undefined && !names.some((name) => INCLUDE_KEY.test(name))) {
    listedKeys.set(cwd, { signature, keys });
  } else listedKeys.delete(cwd);
  return keys;
}

const INCLUDE_KEY = /^include(if\..*)?\.path$/i;
const listedKeys = new Map<string, { readonly signature: string; readonly keys: readonly string[] }>();

/**
 * A file or folder must have been quiet this long before what git read from it is kept: two changes
 * within one coarse clock tick (seconds on some file systems) may leave the same times.
 */
export const QUIET_MS = 2_000;

/**
 * What identifies the configuration git reads in `cwd`, or undefined when it cannot be pinned down
 * cheaply (then it is listed every time). With no system or global config (gitEnv), git reads only the
 * repository's `.git/config` and `.git/config.worktree`, in the nearest folder at or above `cwd` (links
 * resolved, as git's working folder is) holding a `.git` that git takes for a repository. So that `.git`
 * must be a real folder (not a file or link pointing elsewhere, and no `commondir` redirect) that looks
 * to git like a repository (an `objects` and a `refs` folder, a HEAD naming a branch or a commit: else git
 * would look further up), and each config file and the HEAD is identified by device, inode, size and
 * change times. A `.git` made in a folder between changes which one is nearest, and so the signature. A
 * rewrite through git's lock file is a new inode; an in-place write changes ctime, which no program can
 * set back. A file changed in the last QUIET_MS is not trusted, since two writes within one coarse clock
 * tick may leave the same times.
 */
async function configSignature(cwd: string): Promise<string | undefined> {
  try {
    let top = await realpath(cwd);
    while ((await lstatIfAny(join(top, ".git"))) === undefined) {
      if (dirname(top) === top) return undefined;
      top = dirname(top);
    }
    const gitDir = join(top, ".git");
    const dir = await lstat(gitDir, { bigint: true });
    if (!dir.isDirectory() || (await exists(join(gitDir, "commondir")))) return undefined;
    for (const folder of ["objects", "refs"]) {
      if (!(await lstatIfAny(join(gitDir, folder)))?.isDirectory()) return undefined;
    }
    if (!isHeadText(await readFile(join(gitDir, "HEAD"), "utf8"))) return undefined;
    const now = BigInt(Date.now());
    const quiet = BigInt(QUIET_MS);
    const parts = [top, `${dir.dev}:${dir.ino}`];
    for (const name of ["config", "config.worktree", "HEAD"]) {
      const file = await lstatIfAny(join(gitDir, name));
      if (file === undefined) {
        parts.push("-");
        continue;
      }
      if (!file.isFile() || now - file.ctimeMs < quiet || now - file.mtimeMs < quiet) return undefined;
      parts.push(`${file.dev}:${file.ino}:${file.size}:${file.mtimeNs}:${file.ctimeNs}`);
    }
    return parts.join("/");
  } catch {
    return undefined;
  }
}

/** Whether a HEAD file's text is what git requires of a repository's: a branch (`ref: refs/…`) or a commit. */
export function isHeadText(text: string): boolean {
  return /^(ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\n?$/.test(text);
}

/** The entry at `path` (never followed), or undefined when there is none; any other failure throws. */
async function lstatIfAny(path: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(path, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function rawGit(cwd: string, args: readonly string[], input?: string): Promise<Buffer> {
  const full = ["--no-pager", ...args];
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      full,
      {
        cwd,
        env: gitEnv(),
        encoding: "buffer",
        maxBuffer: MAX_OUTPUT,
      },
      (error, stdout, stderr) => {
        if (error) {
          const text = Buffer.isBuffer(stderr) ? stderr.toString("utf8").trim() : "";
          reject(new GitError(`git ${args[0]}: ${text || error.message}`.slice(0, 500)));
          return;
        }
        resolve(stdout);
      },
    );
    // A git that exits before reading all its input is reported by its exit status, not by EPIPE.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  });
}

/** The repository's top folder, or undefined when `cwd` is not inside a work tree (or git is missing). */
export async function repositoryRoot(cwd: string): Promise<string | undefined> {
  try {
    const out = (await git(cwd, ["rev-parse", "--show-toplevel"])).toString("utf8").trim();
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}
