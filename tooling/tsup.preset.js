// Shared tsup settings: every package builds its entry points to ESM with declarations for Node 22+.
// The workspace `paths` (source imports for tests and typecheck) are cleared for the build, so each
// package's declarations import its dependencies by package name instead of inlining them.
import { defineConfig } from "tsup";

/**
 * @param {{ entry?: string[] | Record<string, string>, banner?: string, splitting?: boolean }} [options]
 * `splitting` keeps dynamically imported modules in their own chunks (a CLI's fast start).
 */
export function packageBuild(options = {}) {
  return defineConfig({
    entry: options.entry ?? ["src/index.ts"],
    format: ["esm"],
    target: "node22",
    platform: "node",
    dts: { compilerOptions: { paths: {} } },
    sourcemap: true,
    clean: true,
    splitting: options.splitting ?? false,
    treeshake: true,
    // Keep `node:` prefixes: builtins such as node:sqlite exist only under the prefix, and a bare
    // "sqlite" import fails in a consumer's install (the packed-tarball consumer test caught it).
    removeNodeProtocol: false,
    ...(options.banner ? { banner: { js: options.banner } } : {}),
  });
}
