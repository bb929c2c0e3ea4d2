import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { isErrno, type Workspace } from "./workspace.js";

export interface InstructionsSettings {
  /** File names looked for in each folder; the first one found in a folder is used. */
  readonly files: readonly string[];
  /** Bytes of instructions given to the model at most, all files together. */
  readonly maxBytes: number;
}

export const DEFAULT_INSTRUCTIONS: InstructionsSettings = {
  files: ["AGENTS.md", "CLAUDE.md"],
  maxBytes: 32 * 1024,
};

export interface InstructionsFile {
  readonly path: string;
  readonly text: string;
}

/**
 * The workspace's instruction files, outermost first: from the repository root (the nearest ancestor
 * holding `.git`) down to the workspace root, one file per folder. A deeper file is more specific, so it
 * comes later and wins where they disagree. Past `maxBytes` the rest is cut. The files come from the
 * repository, so what they can make the harness read is bounded: a file that is a link leading out of the
 * repository (to a key in the home folder, say) or is not a regular file (a FIFO would never end) counts
 * as absent, and no file is read past `maxBytes`.
 */
export async function readWorkspaceInstructions(
  workspace: Workspace,
  settings: InstructionsSettings = DEFAULT_INSTRUCTIONS,
): Promise<InstructionsFile[]> {
  const folders = await foldersFromRepositoryRoot(workspace.root);
  const outermost = folders[0] as string;
  const repository = await realpath(outermost).catch(() => outermost);
  const found: InstructionsFile[] = [];
  let budget = settings.maxBytes;
  for (const folder of folders) {
    if (budget <= 0) break;
    for (const name of settings.files) {
      const path = join(folder, name);
      const text = await readInside(path, repository, budget);
      if (text === undefined) continue;
      const bytes = Buffer.byteLength(text);
      const kept =
        bytes <= budget
          ? text
          : `${Buffer.from(text).subarray(0, budget).toString("utf8")}\n[… cut: the instructions passed ${settings.maxBytes} bytes …]`;
      budget -= bytes;
      found.push({ path, text: kept.trim() });
      break;
    }
  }
  return found;
}

/** The system prompt with the instruction files appended. */
export function withInstructions(
  system: string | undefined,
  files: readonly InstructionsFile[],
  root: string,
): string | undefined {
  if (files.length === 0) return system;
  const sections = files.map((file) => `## ${relative(root, file.path) || file.path}\n\n${file.text}`);
  const block = `# Workspace instructions\n\nThese files from the workspace describe how to work in it; follow them (later ones are more specific).\n\n${sections.join("\n\n")}`;
  return system === undefined || system === "" ? block : `${system}\n\n${block}`;
}

/** The text of a regular file whose real path is inside `root`, at most `maxBytes` of it (and a byte more, to tell it was cut). */
async function readInside(path: string, root: string, maxBytes: number): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // Non-blocking: opening a FIFO must not wait for a writer.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR") || isErrno(error, "ELOOP")) return undefined;
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const real = await realpath(path);
    if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function foldersFromRepositoryRoot(root: string): Promise<string[]> {
  const chain: string[] = [];
  let folder = root;
  for (let depth = 0; depth < 64; depth++) {
    chain.push(folder);
    if (await exists(join(folder, ".git"))) return chain.reverse();
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  // Not in a repository: only the workspace root's own file counts.
  return [root];
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
