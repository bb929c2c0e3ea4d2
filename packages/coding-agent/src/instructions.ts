// Workspace instructions (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md), read by core's reader and
// appended to the system prompt. They are model context, never configuration: read in trusted and untrusted
// workspaces alike; a file passed over (a link out of the repository, a FIFO, too large) is said.
import { realpath } from "node:fs/promises";
import { type InstructionsFile, readWorkspaceInstructions, withInstructions } from "@bridle/core";

export interface WorkspaceInstructions {
  readonly files: readonly InstructionsFile[];
  /** The system prompt with the instructions appended. */
  apply(system: string): string;
}

export const NO_INSTRUCTIONS: WorkspaceInstructions = { files: [], apply: (system) => system };

export async function readInstructions(
  workspace: string,
  warn: (line: string) => void,
): Promise<WorkspaceInstructions> {
  const root = await realpath(workspace).catch(() => workspace);
  const files = await readWorkspaceInstructions(root, undefined, {
    onSkip: (skipped) => warn(`bridle: warning: skipping ${skipped.path}: ${skipped.reason}`),
  });
  return { files, apply: (system) => withInstructions(system, files, root) ?? system };
}
