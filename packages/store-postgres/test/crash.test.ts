import { spawn } from "node:child_process";
import { join } from "node:path";
import { runCrashTrials, tempWorkspace } from "@bridle/testing";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { childBundle, databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";

describe.skipIf(skipReason !== "")(`SIGKILLed writers${skipNote}`, () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let writer: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-pg-crash-"));
    writer = join(dir, "crash-writer.mjs");
    await build(childBundle(join(import.meta.dirname, "fixtures", "crash-writer.ts"), writer));
  });
  afterAll(() => cleanup());

  it("keeps every acknowledged batch and no partial one through 100 SIGKILLs", async () => {
    const { schema, drop } = freshSchema("crash");
    try {
      const report = await runCrashTrials({
        spawn: () =>
          spawn(process.execPath, [writer, databaseUrl, schema, "crashy"], {
            stdio: ["ignore", "pipe", "pipe"],
          }),
        open: () => PostgresSessionStore.open({ connectionString: databaseUrl, schema, max: 1 }),
        sessionId: "crashy",
        trials: 100,
      });
      console.log("postgres crash trials:", JSON.stringify(report));
      expect(report.trials).toBe(100);
      // How much lands between kills depends on load; these only make sure appends were exercised.
      expect(report.acknowledged).toBeGreaterThan(0);
      expect(report.killedBeforeReady).toBeLessThan(report.trials);
      expect(report.stored).toBeGreaterThanOrEqual(report.acknowledged + 1);
      // Writers cut batches of 1 + (first seq % 3) events: with no partial batch ever committed, what is
      // stored ends exactly where a batch of that walk from 0 ends.
      let end = 0;
      while (end < report.stored) end += 1 + (end % 3);
      expect(end).toBe(report.stored);
    } finally {
      await drop();
    }
  }, 240_000);
});
