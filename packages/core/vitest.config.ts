import { fileURLToPath } from "node:url";
import { packageTests } from "@bridle/tooling/vitest";
import { mergeConfig } from "vitest/config";

// Core's tests use @bridle/testing's scripted model from source: testing depends on core, so a package
// dependency back would be a cycle.
export default mergeConfig(packageTests(), {
  resolve: {
    alias: {
      "@bridle/core": fileURLToPath(new URL("./src/index.ts", import.meta.url)),
      "@bridle/testing": fileURLToPath(new URL("../testing/src/index.ts", import.meta.url)),
    },
  },
});
