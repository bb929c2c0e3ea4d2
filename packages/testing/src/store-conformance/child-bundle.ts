import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * esbuild options that bundle a child-process script with every `@bridle/*` import taken from source, the
 * way the workspace's tests import them. A crash test spawns hundreds of children: one bundled file starts
 * in a fraction of the time Node needs to load the workspace's TypeScript file by file.
 */
export function childBundleOptions(
  entry: string,
  outfile: string,
): {
  entryPoints: string[];
  outfile: string;
  bundle: true;
  platform: "node";
  format: "esm";
  target: string;
  alias: Record<string, string>;
  logLevel: "error";
} {
  const packagesDir = fileURLToPath(new URL("../../../", import.meta.url));
  const alias: Record<string, string> = {};
  for (const name of readdirSync(packagesDir)) {
    const source = join(packagesDir, name, "src", "index.ts");
    if (existsSync(source)) alias[`@bridle/${name}`] = source;
    // Subpath entries of its exports map (`@bridle/core/node`): `src/<sub>.ts` or `src/<sub>/index.ts`.
    for (const sub of subpathsOf(join(packagesDir, name, "package.json"))) {
      const found = [
        join(packagesDir, name, "src", `${sub}.ts`),
        join(packagesDir, name, "src", sub, "index.ts"),
      ].find((file) => existsSync(file));
      if (found) alias[`@bridle/${name}/${sub}`] = found;
    }
  }
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    alias,
    logLevel: "error",
  };
}

function subpathsOf(manifest: string): string[] {
  if (!existsSync(manifest)) return [];
  const exports = (JSON.parse(readFileSync(manifest, "utf8")) as { exports?: Record<string, unknown> })
    .exports;
  return Object.keys(exports ?? {})
    .filter((key) => key.startsWith("./"))
    .map((key) => key.slice(2));
}
