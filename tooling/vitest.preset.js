// Shared vitest settings: tests live in test/, benchmarks in bench/ (run only by `pnpm bench`).
// Workspace packages are imported from source, so a package's tests never wait on, or race with, another
// package's build output.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const packagesDir = fileURLToPath(new URL("../packages/", import.meta.url));

// A test's and a hook's timeout only catch a hang, never measure speed: `./dev test` runs every package at
// once with turbo, often beside another run on a 2-core machine, where a test that takes 1.2 s alone took
// over 20 s. So no timeout is below this; a package asks for more with `testTimeout`. Speed belongs in
// benchmarks (`pnpm bench`).
const HANG_MS = 120_000;

/**
 * @param {{ testTimeout?: number }} [options]
 */
export function packageTests(options = {}) {
  return defineConfig({
    resolve: {
      alias: [
        { find: /^@bridle\/([a-z0-9-]+)$/, replacement: `${packagesDir}$1/src/index.ts` },
        // A subpath whose source is a folder of its own.
        { find: /^@bridle\/core\/node$/, replacement: `${packagesDir}core/src/node/index.ts` },
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
      testTimeout: Math.max(options.testTimeout ?? 0, HANG_MS),
      hookTimeout: HANG_MS,
      benchmark: { include: ["bench/**/*.bench.ts"] },
      pool: "forks",
    },
  });
}
