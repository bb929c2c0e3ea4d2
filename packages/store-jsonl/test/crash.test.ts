import { spawn } from "node:child_process";
import { join } from "node:path";
import { childBundleOptions, runCrashTrials, tempWorkspace } from "@bridle/testing";
import { build } from "esbuild";
import { afterAll, beforeAll, expect, it } from "vitest";
import { JsonlSessionStore } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
let writer: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-jsonl-crash-"));
  writer = join(dir, "crash-writer.mjs");
  await build(childBundleOptions(join(import.meta.dirname, "fixtures", "crash-writer.ts"), writer));
});

afterAll(() => cleanup());

it("keeps every acknowledged append through 100 SIGKILLs, and loads cleanly after each", async () => {
  const storeDir = join(dir, "store");
  const report = await runCrashTrials({
    spawn: () => spawn(process.execPath, [writer, storeDir, "crashy"], { stdio: ["ignore", "pipe", "pipe"] }),
    open: () => JsonlSessionStore.open({ dir: storeDir }),
    sessionId: "crashy",
    trials: 100,
  });
  console.log("jsonl crash trials:", JSON.stringify(report));
  expect(report.trials).toBe(100);
  // How much gets written between kills depends on the machine's load; the guarantee checked after every
  // kill does not. These only make sure the trials exercised appends at all.
  expect(report.acknowledged).toBeGreaterThan(0);
  expect(report.killedBeforeReady).toBeLessThan(report.trials);
  expect(report.stored).toBeGreaterThanOrEqual(report.acknowledged + 1);
}, 180_000);
