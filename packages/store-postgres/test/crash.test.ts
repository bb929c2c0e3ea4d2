import { spawn } from "node:child_process";
import { join } from "node:path";
import { runCrashTrials, tempWorkspace } from "@bridle/testing";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { childBundle, databaseUrl, freshSchema, skipNote, skipReason, withClient } from "./database.js";

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

  // A killed writer's server session can outlive it by a moment (a COMMIT it sent lands after it died:
  // stored whole, never acknowledged). The check waits for that session to end, then reads a settled store.
  const writerUrl = (): string => {
    const url = new URL(databaseUrl);
    url.searchParams.set("application_name", "bridle_crash_writer");
    return url.toString();
  };
  async function settled(): Promise<void> {
    await withClient(async (client) => {
      for (let i = 0; i < 500; i++) {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bridle_crash_writer'",
        );
        if (rows[0]?.n === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error("a killed writer's server session did not end within 10 s");
    });
  }

  it("keeps every acknowledged batch and no partial one through 100 SIGKILLs", async () => {
    const { schema, drop } = freshSchema("crash");
    try {
      const report = await runCrashTrials({
        spawn: () =>
          spawn(process.execPath, [writer, writerUrl(), schema, "crashy"], {
            stdio: ["ignore", "pipe", "pipe"],
          }),
        open: async () => {
          await settled();
          return PostgresSessionStore.open({ connectionString: databaseUrl, schema, max: 1 });
        },
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
