import { copyFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { packageBuild } from "@bridle/tooling/tsdown";

const require = createRequire(import.meta.url);

export default packageBuild(
  {
    // The policy process (src/isolation.ts) is an entry of its own, started by path.
    entry: {
      index: "src/index.ts",
      "policy-host": "src/host-main.ts",
    },
  },
  {
    // The bash grammar's .wasm (and its MIT licence) ship inside dist/: depending on tree-sitter-bash at run
    // time would install its native addon's build script, which npm 11 skips with a warning.
    async onSuccess() {
      const wasm = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
      await copyFile(wasm, "dist/tree-sitter-bash.wasm");
      await copyFile(join(dirname(wasm), "LICENSE"), "dist/tree-sitter-bash.LICENSE");
    },
  },
);
