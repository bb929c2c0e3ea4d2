// A message typed into a run that ended before delivering it (the run was stopped, the process died) is
// in the session as queued and never delivered: resuming the session delivers it with the next run.
import { join } from "node:path";
import { Harness, type RunStream, sessionSink } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import {
  type FakeProviderServer,
  openaiResponsesFormat,
  ScriptedModel,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli, userTexts } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-queued-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

/** A session whose one run was stopped while a steering message waited for the next request. */
async function stoppedSession(): Promise<void> {
  const store = await JsonlSessionStore.open({ dir: join(dir, "data", "bridle", "jsonl") });
  try {
    await store.createSession({ id: "s1" });
    const controller = new AbortController();
    let stream: RunStream | undefined;
    const model = new ScriptedModel([
      () => {
        stream?.steer("only touch the docs folder");
        controller.abort();
        return { text: "never finished", delayMs: 1_000 };
      },
    ]);
    const sink = sessionSink(store, "s1");
    stream = new Harness({ model }).stream({
      prompt: "tidy up",
      sessionId: "s1",
      sink,
      signal: controller.signal,
    });
    for await (const _ of stream) {
      // drain
    }
    expect((await stream.result).stopReason).toBe("aborted");
    await sink.flush();
  } finally {
    await store.close();
  }
}

it("bridle run --resume delivers the message the stopped run never did, after the new prompt", async () => {
  await stoppedSession();
  server = await fakeOpenAI([{ text: "Only the docs, then." }]);
  const env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
  const args = [
    "--provider",
    "openai",
    "--model",
    "m",
    "--base-url",
    openaiResponsesFormat.baseUrl(server.url),
  ];
  const run = await runCli(["run", "go on", "--resume", "s1", "--cwd", dir, "--no-coding", ...args], {
    cwd: dir,
    env,
  });
  expect(run.stderr).not.toMatch(/error/i);
  expect(run.code).toBe(0);
  expect(userTexts(server.requests[0]?.body)).toEqual(["tidy up", "go on", "only touch the docs folder"]);
  // Delivered now under its queue id: a second resume does not send it again.
  server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "Done." }) });
  const again = await runCli(["run", "thanks", "--resume", "s1", "--cwd", dir, "--no-coding", ...args], {
    cwd: dir,
    env,
  });
  expect(again.code).toBe(0);
  expect(
    userTexts(server.requests[1]?.body).filter((text) => text === "only touch the docs folder"),
  ).toHaveLength(1);
});
