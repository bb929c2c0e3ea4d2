import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The monorepo's packages folder. */
export const packagesDir = fileURLToPath(new URL("../../../packages/", import.meta.url));
/** The applications (`@bridle/cli` lives in apps/cli). */
const appsDir = fileURLToPath(new URL("../../../apps/", import.meta.url));

interface Manifest {
  readonly name: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

/** The folder under packages/ (or, for an application, apps/) that holds `@bridle/<folder>`. */
export function folderOf(name: string): string {
  const match = /^@bridle\/([a-z0-9-]+)$/.exec(name);
  if (!match?.[1]) throw new Error(`${name} is not a @bridle package`);
  const library = join(packagesDir, match[1]);
  return existsSync(library) ? library : join(appsDir, match[1]);
}

export async function readManifest(name: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(folderOf(name), "package.json"), "utf8")) as Manifest;
}

/**
 * The named packages and every @bridle package they need at run time (dependencies and peers), which a
 * consumer's install must also take from tarballs: none of them may come from the registry.
 */
export async function runtimeClosure(names: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const manifest = await readManifest(name);
    for (const deps of [manifest.dependencies, manifest.peerDependencies]) {
      for (const dep of Object.keys(deps ?? {})) if (dep.startsWith("@bridle/")) queue.push(dep);
    }
  }
  return [...seen].sort();
}
