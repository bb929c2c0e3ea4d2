import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const srcDir = fileURLToPath(new URL("../src/", import.meta.url));

/** Every module specifier a source file imports or re-exports, type-only imports excluded (erased). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)) {
    if (!match[1]) found.push(match[2] as string);
  }
  return found;
}

/** The package-external modules reachable at run time from an entry, following relative imports. */
function reachableExternals(entry: string): Set<string> {
  const seen = new Set<string>();
  const externals = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else externals.add(specifier);
    }
  };
  visit(join(srcDir, entry));
  return externals;
}

describe("entry points", () => {
  it("@bridle/testing reaches no test runner at run time, so a script or CLI can import it", () => {
    const externals = [...reachableExternals("index.ts")];
    expect(externals.filter((name) => /vitest|jest|mocha/.test(name))).toEqual([]);
    // The walk really follows the graph: the main entry reaches core and node builtins.
    expect(externals).toContain("@bridle/core");
    expect(externals).toContain("node:http");
  });

  it("@bridle/testing/vitest holds the vitest suites, and they are what needs vitest", async () => {
    expect(reachableExternals("vitest.ts")).toContain("vitest");
    const suites = await import("../src/vitest.js");
    expect(Object.keys(suites).sort()).toEqual([
      "describeProviderConformance",
      "describeSessionStore",
      "describeToolConformance",
      "describeWithSharedFixtures",
    ]);
    const kit = await import("../src/index.js");
    for (const name of Object.keys(suites)) expect(Object.keys(kit)).not.toContain(name);
  });
});
