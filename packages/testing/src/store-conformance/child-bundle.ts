import { existsSync, readdirSync } from "node:fs";
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
