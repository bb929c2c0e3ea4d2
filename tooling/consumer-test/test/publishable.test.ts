import { access, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packagesDir = fileURLToPath(new URL("../../../packages/", import.meta.url));

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly type?: string;
  readonly license?: string;
  readonly sideEffects?: unknown;
  readonly engines?: { readonly node?: string };
  readonly files?: readonly string[];
  readonly exports?: Record<string, Record<string, string> | string>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** What is missing for a package under packages/ to be published and installed on its own. */
async function publishProblems(dir: string, manifest: Manifest): Promise<string[]> {
  const problems: string[] = [];
  if (manifest.type !== "module") problems.push('"type" is not "module"');
  if (manifest.license !== "MIT") problems.push('"license" is not "MIT"');
  if (manifest.sideEffects !== false) problems.push('"sideEffects" is not false');
  if (!manifest.engines?.node) problems.push('no "engines.node"');
  for (const file of ["dist", "README.md", "LICENSE"]) {
    if (!manifest.files?.includes(file)) problems.push(`"files" does not list ${file}`);
  }
  for (const file of ["README.md", "LICENSE"])
    if (!(await exists(join(dir, file)))) problems.push(`no ${file}`);
  const entries = Object.entries(manifest.exports ?? {});
  if (entries.length === 0) problems.push('no "exports" map');
  for (const [key, target] of entries) {
    if (typeof target === "string" || !target.types) problems.push(`exports["${key}"] has no "types"`);
  }
  if (manifest.name !== "@bridle/core" && (await importsCore(dir))) {
    if (manifest.peerDependencies?.["@bridle/core"] !== "workspace:^") {
      problems.push('@bridle/core is not a peerDependency "workspace:^" (an application must hold one core)');
    }
    if (manifest.devDependencies?.["@bridle/core"] !== "workspace:*") {
      problems.push('@bridle/core is not a devDependency "workspace:*"');
    }
    if (manifest.dependencies?.["@bridle/core"])
      problems.push("@bridle/core is a dependency (a second core)");
  }
  return problems;
}

async function importsCore(dir: string): Promise<boolean> {
  const entries = await readdir(join(dir, "src"), { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    if ((await readFile(join(entry.parentPath, entry.name), "utf8")).includes('"@bridle/core"')) return true;
  }
  return false;
}

describe("every public package", () => {
  it("has an exports map with types, files, sideEffects false, engines, MIT, README, LICENSE and core as a peer", async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const entry of await readdir(packagesDir, { withFileTypes: true })) {
      const dir = join(packagesDir, entry.name);
      const text = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
      if (!entry.isDirectory() || !text) continue;
      const manifest = JSON.parse(text) as Manifest;
      if (manifest.private) continue;
      checked++;
      for (const problem of await publishProblems(dir, manifest))
        problems.push(`${manifest.name}: ${problem}`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });
});
