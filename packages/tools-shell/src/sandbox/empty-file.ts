import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let folder: string | undefined;

/**
 * An empty read-only regular file of this process's own, bound over each masked file: readers see an
 * empty file (`grep -r` and `cp -r` go on as with any empty file) where a bound /dev/null would fail
 * them with "Permission denied" (bwrap mounts it nodev). Made again if a temp cleaner removed it, and
 * removed when the process exits.
 */
export function emptyFile(): string {
  if (folder === undefined) {
    folder = mkdtempSync(join(tmpdir(), "bridle-mask-"));
    const made = folder;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  const file = join(folder, "empty");
  if (!existsSync(file)) {
    try {
      writeFileSync(file, "", { mode: 0o444, flag: "wx" });
    } catch (error) {
      if (existsSync(folder)) throw error;
      // a cleaner removed the folder as well
      folder = undefined;
      return emptyFile();
    }
    chmodSync(file, 0o444);
  }
  return file;
}
