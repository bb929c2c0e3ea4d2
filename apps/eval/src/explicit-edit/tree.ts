// The benchmark's verdict, applied here the way its verifier states it: the whole tree equal to the
// expected one byte for byte. A missing file, an extra file, a symlink or any changed byte fails.
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/** Writes the task's input tree under `root`. */
export async function writeTree(root: string, files: ReadonlyMap<string, Buffer>): Promise<void> {
  for (const [path, bytes] of files) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
}

/**
 * The differences between the tree under `root` and `expected` (empty when it matches). `ignore` names
 * top-level entries that are the harness's, not the task's (a run's .git).
 */
export async function compareTree(
  root: string,
  expected: ReadonlyMap<string, Buffer>,
  ignore: readonly string[] = [],
): Promise<string[]> {
  const actual = new Map<string, Buffer | "symlink">();
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const full = join(dir, name);
      const rel = relative(root, full).split("\\").join("/");
      if (ignore.includes(rel)) continue;
      const info = await lstat(full);
      if (info.isSymbolicLink()) actual.set(rel, "symlink");
      else if (info.isDirectory()) await walk(full);
      else actual.set(rel, await readFile(full));
    }
  };
  await walk(root);
  const differences: string[] = [];
  for (const [path, want] of expected) {
    const got = actual.get(path);
    actual.delete(path);
    if (got === undefined) differences.push(`missing ${path}`);
    else if (got === "symlink") differences.push(`symlink ${path}`);
    else if (!got.equals(want)) differences.push(`changed ${path}${whereDiffers(got, want)}`);
  }
  for (const path of actual.keys()) differences.push(`extra ${path}`);
  return differences;
}

function whereDiffers(got: Buffer, want: Buffer): string {
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const line = want.subarray(0, i).toString("utf8").split("\n").length;
  const trimmed = (b: Buffer) => b.toString("utf8").replace(/(\r?\n)+$/, "");
  return ` (first difference on line ${line}${trimmed(got) === trimmed(want) ? ", trailing line breaks only" : ""})`;
}
