// Shared tsdown settings: every package builds its entry points to ESM with declarations for Node 22+, as
// dist/<entry>.js and dist/<entry>.d.ts (the paths each package's `exports` names). Entries share their
// common code through chunks, so two entries of one package use the same classes, and a module imported
// dynamically gets a chunk of its own (a CLI's fast start).
// The workspace `paths` (source imports for tests and typecheck) are cleared for the declarations, so each
// package's .d.ts imports its dependencies by package name instead of inlining them.
import { defineConfig } from "tsdown";

/**
 * @param {{ entry?: string[] | Record<string, string>, banner?: string }} [options]
 * @param {import("tsdown").UserConfig} [extra] settings of one package's own (plugins, onSuccess)
 */
export function packageBuild(options = {}, extra = {}) {
  return defineConfig({
    entry: options.entry ?? ["src/index.ts"],
    format: ["esm"],
    target: "node22",
    platform: "node",
    // .js and .d.ts, not .mjs and .d.mts: the packages are `type: module` and their exports name .js.
    fixedExtension: false,
    dts: { compilerOptions: { paths: {} } },
    sourcemap: true,
    clean: true,
    treeshake: true,
    // Keep `node:` prefixes: builtins such as node:sqlite exist only under the prefix, and a bare
    // "sqlite" import fails in a consumer's install (the packed-tarball consumer test caught it).
    nodeProtocol: true,
    // rolldown's per-plugin timing table is noise in every build log (declarations dominate by design).
    checks: { pluginTimings: false },
    ...(options.banner ? { banner: { js: options.banner } } : {}),
    ...extra,
  });
}
