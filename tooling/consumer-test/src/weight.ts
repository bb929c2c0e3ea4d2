import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** What an install weighs on disk. */
export interface InstallWeight {
  /** Sum of file sizes under node_modules (symlinks counted as links, not followed). */
  readonly bytes: number;
  /** Packages npm installed (entries of package-lock.json under node_modules/, nested ones included). */
  readonly packages: number;
  /** The heaviest packages, largest first: name and bytes (a nested copy counts with its parent). */
  readonly largest: readonly { readonly name: string; readonly bytes: number }[];
}

export async function installWeight(project: string): Promise<InstallWeight> {
  const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  const packages = Object.keys(lock.packages).filter((key) => key.startsWith("node_modules/")).length;
  const modules = join(project, "node_modules");
  const perPackage: { name: string; bytes: number }[] = [];
  for (const name of await topLevelPackages(modules)) {
    perPackage.push({ name, bytes: await folderBytes(join(modules, name)) });
  }
  // node_modules/.package-lock.json and .bin sit outside any package but are part of the install.
  const bytes = await folderBytes(modules);
  perPackage.sort((a, b) => b.bytes - a.bytes);
  return { bytes, packages, largest: perPackage.slice(0, 8) };
}

async function topLevelPackages(modules: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(modules, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    if (entry.name.startsWith("@")) {
      for (const scoped of await readdir(join(modules, entry.name))) names.push(`${entry.name}/${scoped}`);
    } else {
      names.push(entry.name);
    }
  }
  return names;
}

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else total += (await lstat(path)).size;
  }
  return total;
}

export function formatWeight(label: string, weight: InstallWeight): string {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const largest = weight.largest.map((entry) => `${entry.name} ${mb(entry.bytes)}`).join(", ");
  return `${label}: ${weight.packages} packages, ${weight.bytes} bytes (${mb(weight.bytes)}) in node_modules; largest: ${largest}`;
}
