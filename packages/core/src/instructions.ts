import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join, relative } from "node:path";
import { BridleError, errorMessage } from "./errors.js";
import { readRegularFile } from "./node/bounded-read.js";
import { isErrno } from "./node/errno.js";
import { isWithin } from "./node/is-within.js";
import { foldersFromRepositoryTop } from "./node/repository.js";
import type { Workspace } from "./workspace.js";

export interface InstructionsSettings {
  /** File names (or paths below each folder) looked for in each folder; the first one found in a folder is used. */
  readonly files: readonly string[];
  /** Bytes of instructions given to the model at most, all files together. */
  readonly maxBytes: number;
}

export const DEFAULT_INSTRUCTIONS: InstructionsSettings = {
  files: ["AGENTS.md", "CLAUDE.md", join(".github", "copilot-instructions.md")],
  maxBytes: 32 * 1024,
};

/** A larger file is refused rather than read: it is not instructions. */
const MAX_FILE_BYTES = 1024 * 1024;

export interface InstructionsFile {
  readonly path: string;
  readonly text: string;
}

/** An instruction file that was there but not used, and why (for a warning the user sees). */
export interface SkippedInstructions {
  readonly path: string;
  readonly reason: string;
}

export interface ReadInstructionsOptions {
  /** Told of each file passed over for a reason the user should know (a link out, a FIFO, too large). */
  readonly onSkip?: (skipped: SkippedInstructions) => void;
}

/**
 * The workspace's instruction files, outermost first: from the repository's top (the nearest ancestor
 * holding `.git`) down to the workspace root, the first of `settings.files` found in each folder. A deeper
 * file is more specific, so it comes later and wins where they disagree. Past `maxBytes` the rest is cut.
 *
 * The files are model context, never configuration, so they are read in trusted and untrusted workspaces
 * alike; what they cannot do is make the harness read other files. The walk starts from the workspace's
 * real path, and a file that is a link leading out of the repository (to a key in the home folder, say),
 * is not a regular file (a FIFO would never end) or is larger than 1 MiB is skipped and reported to
 * `onSkip`. A file that does not exist is simply absent. One that cannot be read for another reason (no
 * permission) is reported to `onSkip` and skipped, or, with no `onSkip` to hear of it, thrown.
 */
export async function readWorkspaceInstructions(
  workspace: Workspace | string,
  settings: InstructionsSettings = DEFAULT_INSTRUCTIONS,
  options: ReadInstructionsOptions = {},
): Promise<InstructionsFile[]> {
  const root = typeof workspace === "string" ? workspace : workspace.root;
  const realRoot = await realpath(root).catch(() => root);
  const folders = await foldersFromRepositoryTop(realRoot);
  const repository = folders[0] as string;
  const found: InstructionsFile[] = [];
  let budget = settings.maxBytes;
  for (const folder of folders) {
    if (budget <= 0) break;
    for (const name of settings.files) {
      const path = join(folder, name);
      const text = await readInside(path, repository, options);
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

/** The system prompt with the instruction files appended, each under its name relative to `root`. */
export function withInstructions(
  system: string | undefined,
  files: readonly InstructionsFile[],
  root: string,
): string | undefined {
  if (files.length === 0) return system;
  const sections = files.map((file) => `## ${instructionsName(file, root)}\n\n${file.text}`);
  const block = `# Workspace instructions\n\nThese files from the workspace describe how to work in it; follow them (later ones are more specific).\n\n${sections.join("\n\n")}`;
  return system === undefined || system === "" ? block : `${system}\n\n${block}`;
}

/**
 * How an instruction file is named to the model and the user: relative to the workspace `root` (`AGENTS.md`,
 * `../AGENTS.md` for the repository's top above it). Files are found from the root's real path, so a root
 * reached through a link is resolved before comparing.
 */
export function instructionsName(file: InstructionsFile, root: string): string {
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {}
  return relative(realRoot, file.path) || file.path;
}

/** The text of a regular file whose real path is inside `repository`; undefined when absent or skipped. */
async function readInside(
  path: string,
  repository: string,
  options: ReadInstructionsOptions,
): Promise<string | undefined> {
  try {
    const file = await readRegularFile(path, MAX_FILE_BYTES);
    if (!isWithin(repository, file.realPath)) {
      options.onSkip?.({ path, reason: "it links outside the repository" });
      return undefined;
    }
    return file.bytes.toString("utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return undefined;
    // What a repository can put there (a FIFO, a huge file, a link loop) is passed over. Any other failure
    // (no permission, an I/O error) is passed over only when someone hears of it; else it is thrown.
    const refused = error instanceof BridleError || isErrno(error, "ELOOP");
    if (!refused && options.onSkip === undefined) throw error;
    options.onSkip?.({ path, reason: errorMessage(error) });
    return undefined;
  }
}
