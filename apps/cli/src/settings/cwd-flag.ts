import { statSync } from "node:fs";
import { resolve } from "node:path";
import { CliError } from "../cli-error.js";

/**
 * `--cwd` must name an existing folder, whatever the command: a workspace that is not there would make
 * every tool answer NotFound while the run talks to the model and exits 0.
 */
export function checkCwdFlag(cwd: string | undefined): void {
  if (cwd === undefined) return;
  const path = resolve(cwd);
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code})`;
    throw new CliError(`--cwd ${cwd}: ${why}`, 2);
  }
  if (!isFolder) throw new CliError(`--cwd ${cwd}: not a folder`, 2);
}
