import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly exports?: Record<string, unknown>;
}

interface Workspace {
  readonly dir: string;
  readonly manifest: Manifest;
}

async function workspacePackages(): Promise<Workspace[]> {
  const found: Workspace[] = [];
  for (const group of ["packages", "apps"]) {
    const entries = await readdir(join(repoRoot, group), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const dir = join(repoRoot, group, entry.name);
      const text = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
      if (text) found.push({ dir, manifest: JSON.parse(text) as Manifest });
    }
  }
  return found;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|tsx|mts|js|mjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/**
 * What users see of a package is its exports, resolved through its declared dependencies: a src/ import
 * of another @bridle package that is undeclared, reaches a subpath that package does not export, or a
 * relative path out of the package works in the workspace and breaks in an npm install.
 */
async function boundaryViolations(): Promise<{ violations: string[]; checked: number }> {
  const packages = await workspacePackages();
  const byName = new Map(packages.map((pkg) => [pkg.manifest.name, pkg]));
  const violations: string[] = [];
  let checked = 0;
  for (const { dir, manifest } of packages) {
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    for (const file of await sourceFiles(join(dir, "src"))) {
      const shown = relative(repoRoot, file);
      const text = await readFile(file, "utf8");
      for (const match of text.matchAll(SPECIFIER)) {
        const specifier = match[1] as string;
        if (specifier.startsWith(".")) {
          const target = resolve(dirname(file), specifier);
          if (relative(dir, target).startsWith(".."))
            violations.push(`${shown}: relative import out of its package: ${specifier}`);
          continue;
        }
        const bridle = /^(@bridle\/[a-z0-9-]+)(\/.*)?$/.exec(specifier);
        if (!bridle) continue;
        checked++;
        const [, name, subpath] = bridle as unknown as [string, string, string | undefined];
        if (name === manifest.name) {
          violations.push(`${shown}: imports its own package by name (${specifier})`);
          continue;
        }
        const layering = layerViolation(manifest.name, name, dir.includes(`${join(repoRoot, "apps")}`));
        if (layering) violations.push(`${shown}: ${layering}`);
        if (!declared.has(name))
          violations.push(`${shown}: imports ${name}, not in dependencies or peerDependencies`);
        const target = byName.get(name);
        if (subpath && !Object.hasOwn(target?.manifest.exports ?? {}, `.${subpath}`)) {
          violations.push(`${shown}: imports ${specifier}, which ${name} does not export`);
        }
      }
    }
  }
  return { violations, checked };
}

/**
 * The one-direction flow of docs/architecture.md: everything points at core; applications compose. A
 * provider, a store or tracing is chosen by the application, so no library imports one; a store or a
 * provider does not import a tool; nothing ships the test kit in its runtime code.
 */
export function layerViolation(from: string, to: string, fromApp: boolean): string | undefined {
  const folder = (name: string) => name.replace(/^@bridle\//, "");
  const source = folder(from);
  const target = folder(to);
  if (source === "core") return `core imports ${to}: core depends on no other package`;
  // An application may run the fakes on purpose (the CLI's offline demo), declared as a dependency.
  if (fromApp) return undefined;
  if (target === "testing") return `imports ${to} at run time: the test kit is a devDependency`;
  // The recipe is where concrete packages meet: it lists the providers and opens the store the settings name.
  if (source === "coding-agent" && /^(providers-|store-)/.test(target)) return undefined;
  if (/^(providers-|store-)/.test(target) || target === "tracing-otel") {
    return `imports ${to}: which provider, store or tracing to use is the application's choice`;
  }
  if (
    /^(providers-|store-|provider-kit$)/.test(source) &&
    (target.startsWith("tools-") || target === "shell-policy")
  ) {
    return `imports ${to}: providers and stores do not depend on tools`;
  }
  // The command policy is the one home of judging a command: every tool that runs one asks it, so it
  // cannot itself depend on a tool (or on anything but core).
  if (source === "shell-policy" && target !== "core")
    return `imports ${to}: the command policy depends on core alone`;
  return undefined;
}

describe("package boundaries", () => {
  it("layering rules reject sideways imports", () => {
    expect(layerViolation("@bridle/tools-fs", "@bridle/providers-openai", false)).toContain(
      "application's choice",
    );
    expect(layerViolation("@bridle/store-jsonl", "@bridle/tools-fs", false)).toContain(
      "do not depend on tools",
    );
    expect(layerViolation("@bridle/core", "@bridle/provider-kit", false)).toContain(
      "core depends on no other",
    );
    expect(layerViolation("@bridle/tools-fetch", "@bridle/testing", false)).toContain("devDependency");
    expect(layerViolation("@bridle/cli", "@bridle/store-sqlite", true)).toBeUndefined();
    expect(layerViolation("@bridle/tools-edit-hashline", "@bridle/tools-fs", false)).toBeUndefined();
    expect(layerViolation("@bridle/providers-openai", "@bridle/provider-kit", false)).toBeUndefined();
    expect(layerViolation("@bridle/coding-agent", "@bridle/store-postgres", false)).toBeUndefined();
    expect(layerViolation("@bridle/coding-agent", "@bridle/tracing-otel", false)).toContain(
      "application's choice",
    );
    expect(layerViolation("@bridle/tools-shell", "@bridle/shell-policy", false)).toBeUndefined();
    expect(layerViolation("@bridle/shell-policy", "@bridle/core", false)).toBeUndefined();
    expect(layerViolation("@bridle/shell-policy", "@bridle/tools-shell", false)).toContain("core alone");
    expect(layerViolation("@bridle/store-sqlite", "@bridle/shell-policy", false)).toContain(
      "do not depend on tools",
    );
  });

  it("src/ imports other packages only by their exports, through declared dependencies, in one direction", async () => {
    const { violations, checked } = await boundaryViolations();
    expect(violations).toEqual([]);
    // The scan really read the sources: every package imports core at least once.
    expect(checked).toBeGreaterThan(20);
  });
});
