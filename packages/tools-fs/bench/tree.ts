import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const MIN_FILES = 50_000;
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

async function countFiles(dir: string): Promise<number> {
  const { stdout } = await run("find", [dir, "-type", "f"], { maxBuffer: 1 << 28 });
  return stdout.split("\n").filter(Boolean).length;
}

/**
 * A large real tree to search: `BRIDLE_BENCH_TREE` when set (left as it is), else a hard-linked snapshot
 * (cheap, and stable while others install) of this repository's node_modules/.pnpm and /usr/share, topped
 * up with generated source files if the machine has fewer than 50,000 files to offer, in a temporary
 * folder that `remove` deletes (a run once left hundreds of MB behind in /tmp).
 */
export async function benchTree(): Promise<{ dir: string; files: number; remove: () => Promise<void> }> {
  const given = process.env.BRIDLE_BENCH_TREE;
  if (given) return { dir: given, files: await countFiles(given), remove: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), "bridle-fs-bench-tree-"));
  const remove = () => rm(dir, { recursive: true, force: true });
  const sources = [
    { from: join(repoRoot, "node_modules/.pnpm"), to: "node_modules" },
    { from: "/usr/share", to: "usr-share" },
  ];
  for (const source of sources) {
    if (!existsSync(source.from)) continue;
    await run("cp", ["-a", "--link", source.from, join(dir, source.to)]).catch(() => undefined);
  }
  let files = await countFiles(dir);
  for (let index = 0; files < MIN_FILES; index++, files++) {
    const folder = join(dir, "generated", `pkg${Math.floor(index / 100)}`);
    if (index % 100 === 0) await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, `mod${index}.ts`),
      `export function f${index}(x: number) {\n  return x * ${index};\n}\n`,
    );
  }
  return { dir, files, remove };
}
