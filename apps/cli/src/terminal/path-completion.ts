// Tab after `@` in the interactive prompt completes a workspace path, a folder at a time, as a shell does.
// Offered: what git would show (tracked files and untracked ones it does not ignore), or, outside a git
// repository, the folder's entries; never a secret or a protected path, which `@path` would refuse anyway.
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isSecretPath, protectedPathReason } from "@bridle/core";

/** At most this many names are listed under the prompt; a longer list narrows as more is typed. */
const MAX_SHOWN = 200;
/** Listed from git (or the folder) at most this often: a Tab pressed again reuses the listing. */
const LISTING_TTL_MS = 5_000;

const MENTION_AT_END = /(?:^|\s)@([^\s@]*)$/;

/** A readline completer for `@path` in the workspace `root`: the matches, and the word they replace. */
export function pathCompleter(root: string): (line: string) => Promise<[string[], string]> {
  let listed: { at: number; paths: Promise<readonly string[]> } | undefined;
  return async (line) => {
    const prefix = MENTION_AT_END.exec(line)?.[1];
    if (prefix === undefined) return [[], line];
    if (!listed || Date.now() - listed.at > LISTING_TTL_MS)
      listed = { at: Date.now(), paths: workspacePaths(root) };
    const all = await listed.paths.catch(() => []);
    return [completions(all, prefix).map((path) => `@${path}`), `@${prefix}`];
  };
}

/** The next step of each path under `prefix`: a whole file name, or a folder name ending in `/`. */
export function completions(paths: readonly string[], prefix: string): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(prefix)) continue;
    const slash = path.indexOf("/", prefix.length);
    found.add(slash === -1 ? path : path.slice(0, slash + 1));
    if (found.size >= MAX_SHOWN) break;
  }
  return [...found].sort();
}

/** Workspace-relative file paths a person may name with `@`. */
async function workspacePaths(root: string): Promise<readonly string[]> {
  const fromGit = await gitFiles(root);
  const paths = fromGit ?? (await folderEntries(root));
  return paths.filter(
    (path) => path !== "" && !isSecretPath(path) && protectedPathReason(path) === undefined,
  );
}

function gitFiles(root: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      { cwd: root, maxBuffer: 32 * 1024 * 1024, timeout: 5_000 },
      (error, stdout) => resolve(error ? undefined : stdout.split("\0")),
    );
  });
}

/** Outside git: the root's entries and one level below, folders marked with `/`. */
async function folderEntries(root: string): Promise<string[]> {
  const paths: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) {
      paths.push(entry.name);
      continue;
    }
    const inner = await readdir(join(root, entry.name), { withFileTypes: true }).catch(() => []);
    for (const child of inner) paths.push(`${entry.name}/${child.name}${child.isDirectory() ? "/" : ""}`);
    if (inner.length === 0) paths.push(`${entry.name}/`);
  }
  return paths;
}
