// Shared vitest settings: tests live in test/, benchmarks in bench/ (run only by `pnpm bench`).
// Workspace packages are imported from source, so a package's tests never wait on, or race with, another
// package's build output.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const packagesDir = fileURLToPath(new URL("../packages/", import.meta.url));

/**
 * @param {{ testTimeout?: number }} [options]
 */
export function packageTests(options = {}) {
  return defineConfig({
    resolve: {
      alias: [
        { find: /^@bridle\/([a-z0-9-]+)$/, replacement: `${packagesDir}$1/src/index.ts` },
        // A subpath in a package's exports map (`@bridle/testing/vitest`) is `src/<subpath>.ts` there;
        // @bridle/tooling's (`/postgres`, `/browser`) are plain JavaScript files, resolved as installed.
        {
          find: /^@bridle\/(?!tooling\/)([a-z0-9-]+)\/([a-z0-9-]+)$/,
          replacement: `${packagesDir}$1/src/$2.ts`,
        },
      ],
    },
    test: {
      include: ["test/**/*.test.ts"],
      globalSetup: [fileURLToPath(new URL("./vitest.global-setup.js", import.meta.url))],
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 20_000,
      benchmark: { include: ["bench/**/*.bench.ts"] },
      pool: "forks",
    },
  });
}
