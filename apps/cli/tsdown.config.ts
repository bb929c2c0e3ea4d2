import { realpathSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { packageBuild } from "@bridle/tooling/tsdown";

// The bridle command is one bundle: the Bridle packages and the plain JavaScript they use are built into
// dist/, so a start reads a few files instead of resolving and loading some 500 modules one by one (the
// openai SDK alone is 236). Left out, and imported from node_modules as they are: what finds files beside
// its own code (a .wasm, a program, optional modules it requires by name) and the durable runs' Postgres
// stack. Each of those is a dependency of this package, so it resolves from dist/ in any install.
const NEVER_BUNDLED = ["blake3-wasm", "web-tree-sitter", "@vscode/ripgrep", "@dbos-inc/dbos-sdk", "pg"];

/** Whether an import (as written: `pg`, `@vscode/ripgrep/lib/x`) names one of those packages. */
const neverBundled = (id: string): boolean => {
  const parts = id.split("/");
  return NEVER_BUNDLED.includes(id.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? id));
};

// The processes the bundled packages start by path (src/*/built-entry.ts looks beside the bundle first).
const distOf = (name: string): string => join(realpathSync(join("node_modules", name)), "dist");

export default packageBuild(
  {
    entry: {
      main: "src/main.ts",
      "policy-host": join(distOf("@bridle/shell-policy"), "policy-host.js"),
      "shell-spawner": join(distOf("@bridle/tools-shell"), "shell-spawner.js"),
      "root-only-walk": join(distOf("@bridle/tools-shell"), "root-only-walk.js"),
    },
    // Young space of 4 MB, old space grown by 25% (not V8's up to 300%) after each full collection: a long
    // session's garbage is collected before it piles up, at no cost in CPU per turn measured. See the README's
    // note on memory and test/cli-harness.ts.
    banner: "#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=25",
  },
  {
    // The workspace's source paths are for tests and typechecking; the bundle takes each package as it is
    // published (its dist/, built first), so a package's own build steps (the viewer's page) stay its own.
    tsconfig: false,
    deps: {
      alwaysBundle: (id) => !neverBundled(id),
      neverBundle: (id) => neverBundled(id),
      // The build fails if the bundle imports any other package: one forgotten here would be missing from
      // a user's install.
      onlyImport: NEVER_BUNDLED,
    },
    async onSuccess() {
      // The bash grammar (and its licence) that @bridle/shell-policy's parser loads from beside its code.
      const policy = distOf("@bridle/shell-policy");
      await copyFile(join(policy, "tree-sitter-bash.wasm"), "dist/tree-sitter-bash.wasm");
      await copyFile(join(policy, "tree-sitter-bash.LICENSE"), "dist/tree-sitter-bash.LICENSE");
    },
  },
);
