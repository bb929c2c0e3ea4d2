import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type CompactionEvent, userText } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hooksFromSettings } from "../src/index.js";
import { agent, reports, script, sentText } from "./setup.js";

let dir: string;
let cleanup: () => Promise<void>;
const stops: (() => Promise<void> | void)[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-session-"));
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await cleanup();
});

const logTo = (file: string) => `#!/bin/bash\ncat >> "${file}"\necho >> "${file}"\n`;
const lines = async (file: string) =>
  (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

describe("session events", () => {
  it("SessionStart adds context once, on the session's first run; sessionEnd runs SessionEnd", async () => {
    const starts = join(dir, "starts.jsonl");
    const ends = join(dir, "ends.jsonl");
    const start = await script(
      dir,
      "start.sh",
      `#!/bin/bash\ncat >> "${starts}"\necho >> "${starts}"\necho "Branch: main, 3 open TODOs"\n`,
    );
    const end = await script(dir, "end.sh", logTo(ends));
    const scripts = hooksFromSettings(
      {
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: start }] }],
        SessionEnd: [{ hooks: [{ type: "command", command: end }] }],
      },
      { cwd: dir, sessionId: "s-9" },
    );
    const { model, harness, stop } = await agent(dir, scripts.hooks, [{ text: "one" }, { text: "two" }]);
    stops.push(stop);
    const first = await harness.run({ prompt: "first" });
    await harness.run({ prompt: "second", history: first.messages });
    expect(sentText(model.requests[0]?.messages)).toContain("Branch: main, 3 open TODOs");
    expect(sentText(model.requests[1]?.messages).match(/Branch: main/g)).toHaveLength(1);
    expect(await lines(starts)).toMatchObject([
      { hook_event_name: "SessionStart", source: "startup", session_id: "s-9" },
    ]);
    await scripts.sessionEnd("prompt_input_exit");
    expect(await lines(ends)).toMatchObject([{ hook_event_name: "SessionEnd", reason: "prompt_input_exit" }]);
  });

  it("Notification runs when a call waits for approval; PostCompact when the transcript is compacted", async () => {
    const notes = join(dir, "notes.jsonl");
    const compacts = join(dir, "compacts.jsonl");
    const seen = reports();
    const scripts = hooksFromSettings(
      {
        Notification: [
          {
            matcher: "permission_prompt",
            hooks: [{ type: "command", command: await script(dir, "n.sh", logTo(notes)) }],
          },
        ],
        PostCompact: [{ hooks: [{ type: "command", command: await script(dir, "c.sh", logTo(compacts)) }] }],
      },
      { cwd: dir, onReport: seen.onReport },
    );
    expect(seen.list).toEqual([]);
    const { harness, stop } = await agent(dir, scripts.hooks, [
      { toolCalls: [{ name: "bash", arguments: { command: "touch approved-file" } }] },
      { text: "done" },
    ]);
    stops.push(stop);
    await harness.run({ prompt: "go", observers: [scripts.observer] });
    await scripts.observer.idle();
    expect(await lines(notes)).toMatchObject([
      {
        hook_event_name: "Notification",
        notification_type: "permission_prompt",
        message: expect.stringContaining("bash"),
      },
    ]);
    // A compaction needs a long transcript and a summarizing model; its event is what the observer reads.
    const compaction: CompactionEvent = {
      type: "compaction",
      runId: "r-1",
      seq: 1,
      time: 0,
      replacedCount: 4,
      summary: userText("Summary: the parser was fixed."),
      reason: "threshold",
    };
    scripts.observer.write(compaction);
    await scripts.observer.idle();
    expect(await lines(compacts)).toMatchObject([
      { hook_event_name: "PostCompact", trigger: "auto", compact_summary: "Summary: the parser was fixed." },
    ]);
  });

  it("PreToolUse additionalContext reaches the model with the call's result", async () => {
    const note = await script(
      dir,
      "note.sh",
      `#!/bin/bash\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"This repo uses pnpm, not npm."}}'\n`,
    );
    const scripts = hooksFromSettings(
      { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: note }] }] },
      { cwd: dir },
    );
    const { model, harness, stop } = await agent(dir, scripts.hooks, [
      { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
      { text: "done" },
    ]);
    stops.push(stop);
    await harness.run({ prompt: "go" });
    expect(sentText(model.requests[1]?.messages)).toContain("This repo uses pnpm, not npm.");
  });
});
