import { packageTests } from "@bridle/tooling/vitest";
import { mergeConfig } from "vitest/config";

// One throwaway Postgres per test run (or BRIDLE_DATABASE_URL's): see test/postgres-server.ts.
export default mergeConfig(packageTests({ testTimeout: 120_000 }), {
  test: { globalSetup: ["./test/postgres-server.ts"] },
});
