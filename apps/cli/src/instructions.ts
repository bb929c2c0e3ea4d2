// Workspace instructions: AGENTS.md (or CLAUDE.md, or .github/copilot-instructions.md) from the repository
// root down to the workspace folder, appended to the system prompt.
//
// Trust: these files are model context, never configuration. They change no setting, approve nothing and
// widen no access; the model could read them with read_file anyway. So they are read in trusted and
// untrusted workspaces alike, under a heading that says they come from the workspace. What they cannot
// do is reach outside the repository: a file that is a link leading out of it (to ~/.ssh, say), or is
// not a regular file, is skipped with a warning, so a repository cannot make the CLI send other files
// to the model provider. `--no-instructions` leaves them all out.
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type InstructionsFile, withInstructions } from "@bridle/core";
import { isInside } from "./agent-files.js";
import { readRegularFile } from "./bounded-read.js";
import { displayText } from "./display-text.js";

/** Per folder, the first of these found is used: AGENTS.md is preferred. */
export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", join(".github", "copilot-instructions.md")];

/** All instruction files together give the model at most this many bytes. */
const MAX_BYTES = 32 * 1024;
/** A larger file is refused rather than read (it is not instructions). */
const MAX_FILE_BYTES = 1024 * 1024;

export interface WorkspaceInstructions {
  readonly files: readonly InstructionsFile[];
  /** The system prompt with the instructions appended. */
  apply(system: string): string;
}

export async function readInstructions(
  workspace: string,
  warn: (line: string) => void,
): Promise<WorkspaceInstructions> {
  const { realpath } = await import("node:fs/promises");
  const realWorkspace = await realpath(workspace).catch(() => workspace);
  const folders = await foldersFromRepositoryRoot(realWorkspace);
  const root = folders[0] as string;
  const files: InstructionsFile[] = [];
  let budget = MAX_BYTES;
  for (const folder of folders) {
    if (budget <= 0) break;
    for (const name of INSTRUCTION_FILES) {
      const path = join(folder, name);
      let text: string;
      try {
        const file = await readRegularFile(path, MAX_FILE_BYTES);
        if (!isInside(root, file.realPath)) {
          warn(`bridle: warning: skipping ${displayText(path)}: it links outside the repository`);
          continue;
        }
        text = file.bytes.toString("utf8");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR")
          warn(`bridle: warning: skipping ${displayText(path)}: ${displayText((error as Error).message)}`);
        continue;
      }
      const bytes = Buffer.byteLength(text);
      const kept =
        bytes <= budget
          ? text
          : `${Buffer.from(text).subarray(0, budget).toString("utf8")}\n[… cut: the instructions passed ${MAX_BYTES} bytes …]`;
      budget -= bytes;
      files.push({ path, text: kept.trim() });
      break;
    }
  }
  return {
    files,
    apply: (system) => withInstructions(system, files, realWorkspace) ?? system,
  };
}

/** The workspace and its ancestors up to the nearest one holding `.git`, outermost first. */
async function foldersFromRepositoryRoot(workspace: string): Promise<string[]> {
  const chain: string[] = [];
  let folder = workspace;
  for (let depth = 0; depth < 64; depth++) {
    chain.push(folder);
    if (
      await stat(join(folder, ".git")).then(
        () => true,
        () => false,
      )
    )
      return chain.reverse();
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  // Not in a repository: only the workspace's own files count.
  return [workspace];
}
