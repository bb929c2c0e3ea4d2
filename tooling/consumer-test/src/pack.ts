import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { folderOf } from "./workspace-packages.js";

const run = promisify(execFile);

/**
 * Packs each package with `pnpm pack` (which rewrites `workspace:` ranges to real versions, as publishing
 * does) into `destination`. Returns tarball paths by package name. Three at a time: each pack is mostly
 * process start-up.
 */
export async function packPackages(
  names: readonly string[],
  destination: string,
): Promise<Map<string, string>> {
  const tarballs = new Map<string, string>();
  const pending = [...names];
  const worker = async (): Promise<void> => {
    for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
      const { stdout } = await run("pnpm", ["pack", "--pack-destination", destination, "--json"], {
        cwd: folderOf(name),
        maxBuffer: 16 * 1024 * 1024,
      });
      const packed = JSON.parse(stdout) as { name: string; filename: string };
      if (packed.name !== name) throw new Error(`packing ${name} produced ${packed.name}`);
      tarballs.set(name, packed.filename);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  return tarballs;
}
