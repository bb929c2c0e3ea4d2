import { type FileBytes, readRegularFile as readBounded } from "@bridle/core/node";
import { CliError } from "../cli-error.js";

export type { FileBytes };

const REFUSALS = new Set(["not_regular_file", "file_too_large"]);

/**
 * Core's bounded read of a regular file (`@bridle/core/node`), with its refusals (not a regular file,
 * larger than `maxBytes`) as CLI errors of exit status 2: a config naming a FIFO is the user's to fix.
 * Errors of the open itself (ENOENT…) pass through as they are, for callers that treat them as "none".
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<FileBytes> {
  try {
    return await readBounded(path, maxBytes);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && REFUSALS.has(code)) throw new CliError((error as Error).message, 2);
    throw error;
  }
}
