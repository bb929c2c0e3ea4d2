import { spawn } from "node:child_process";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { crashEvent, runCrashTrials, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { JsonlSessionStore } from "../src/index.js";

// The crash check itself must be able to fail: a writer whose acks run ahead of the store, or a store that
// hands back something other than what was written, is caught.

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-crash-check-"));
  const store = await JsonlSessionStore.open({ dir });
  await store.createSession({ id: "s" });
  await store.append("s", [0, 1, 2].map(crashEvent));
  await store.close();
});
afterEach(() => cleanup());

const liar = (ack: number) => () =>
  spawn(
    process.execPath,
    // The ack comes before "ready": the trial may kill the child as soon as it sees "ready", and the ack must
    // have been read by then whatever chunks the pipe delivers the lines in.
    ["-e", `console.log("ack ${ack}"); console.log("ready"); setInterval(() => {}, 1000);`],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );

it("fails when an acknowledged append is missing", async () => {
  await expect(
    runCrashTrials({
      spawn: liar(7),
      open: () => JsonlSessionStore.open({ dir }),
      sessionId: "s",
      trials: 1,
    }),
  ).rejects.toThrow("7 was acknowledged but the store holds up to 2");
});

it("fails when a stored event is not the one written", async () => {
  const store = await JsonlSessionStore.open({ dir });
  await store.append("s", [crashEvent(4)]);
  await store.close();
  await expect(
    runCrashTrials({
      spawn: liar(2),
      open: () => JsonlSessionStore.open({ dir }),
      sessionId: "s",
      trials: 1,
    }),
  ).rejects.toThrow("event 3 is not what was written");
});

it("passes a store that holds exactly what was acknowledged, torn tail and all", async () => {
  await appendFile(join(dir, "sessions", "s.jsonl"), '{"seq":3,"parent":"s:2","ev');
  const report = await runCrashTrials({
    spawn: liar(2),
    open: () => JsonlSessionStore.open({ dir }),
    sessionId: "s",
    trials: 1,
  });
  expect(report).toMatchObject({ trials: 1, acknowledged: 2, stored: 3 });
});
