import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const reportsDir = join(repoRoot, "etc");

export interface PublicPackage {
  /** The import specifier: the package name, or `name/subpath` for a subpath entry of its exports map. */
  readonly name: string;
  /** Its folder under packages/ (plus `-subpath`), which also names its report: etc/<folder>.api.md. */
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

/** Every entry point of every published (not private) package under packages/, with its declarations. */
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
    // A subpath entry (`@bridle/testing/vitest`) is public API too: its own report, etc/testing-vitest.api.md.
    for (const [key, target] of Object.entries(manifest.exports ?? {})) {
      if (key === "." || !target.types) continue;
      const subpath = key.replace(/^\.\//, "");
      found.push({
        name: `${manifest.name}/${subpath}`,
        folder: `${entry.name}-${subpath.replaceAll("/", "-")}`,
        dir,
        types: join(dir, target.types),
      });
    }
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
