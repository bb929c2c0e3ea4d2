// Shared vitest settings: tests live in test/, benchmarks in bench/ (run only by `pnpm bench`).
import { defineConfig } from "vitest/config";

/**
 * @param {{ testTimeout?: number }} [options]
 */
export function packageTests(options = {}) {
  return defineConfig({
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 20_000,
      benchmark: { include: ["bench/**/*.bench.ts"] },
      pool: "forks",
    },
  });
}
