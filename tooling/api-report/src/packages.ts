import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const reportsDir = join(repoRoot, "etc");

export interface PublicPackage {
  readonly name: string;
  /** Its folder under packages/, which also names its report: etc/<folder>.api.md. */
  readonly folder: string;
  readonly dir: string;
  /** The built declarations its exports map points at. */
  readonly types: string;
}

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Record<string, { readonly types?: string }>;
}

/** Every package under packages/ that is published (not private), with its entry declarations. */
export async function publicPackages(): Promise<PublicPackage[]> {
  const found: PublicPackage[] = [];
  const root = join(repoRoot, "packages");
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, entry.name);
    const manifest = await readFile(join(dir, "package.json"), "utf8").then(
      (text) => JSON.parse(text) as Manifest,
      () => undefined,
    );
    if (!manifest || manifest.private) continue;
    const types = manifest.exports?.["."]?.types;
    if (!types) throw new Error(`${manifest.name} has no exports["."].types: the API report needs one`);
    found.push({ name: manifest.name, folder: entry.name, dir, types: join(dir, types) });
  }
  return found.sort((a, b) => a.folder.localeCompare(b.folder));
}

/**
 * The packages this one lists as devDependencies: turbo builds exactly those before the check runs, so
 * every public package must be listed.
 */
export async function wiredPackages(): Promise<string[]> {
  const manifest = JSON.parse(
    await readFile(join(repoRoot, "tooling", "api-report", "package.json"), "utf8"),
  ) as { devDependencies: Record<string, string> };
  return Object.keys(manifest.devDependencies).filter((name) => name.startsWith("@bridle/"));
}
