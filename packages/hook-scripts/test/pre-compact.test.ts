import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_SUMMARY_INSTRUCTIONS, defineTool, Harness, type RunEvent } from "@bridle/core";
import { collectEvents, ScriptedModel, type ScriptRequest, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type HookScripts, hooksFromSettings } from "../src/index.js";
import { reports, script } from "./setup.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-compact-"));
});
afterEach(() => cleanup());

const logTo = (file: string) => `#!/bin/bash\ncat >> "${file}"\necho >> "${file}"\n`;
const lines = async (file: string) =>
  (await readFile(file, "utf8").catch(() => ""))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

const bulky = defineTool({
  name: "bulky",
  description: "Returns a block of text",
  inputSchema: z.object({ n: z.number().int() }),
  execute: async ({ n }) => ({ content: `block ${n}: ${"x".repeat(1_000)}` }),
});

/** A harness whose transcript passes its compaction threshold after a few calls to bulky. */
function compactingAgent(scripts: HookScripts) {
  let main = 0;
  const model = new ScriptedModel((request: ScriptRequest) => {
    if (request.system === DEFAULT_SUMMARY_INSTRUCTIONS) return { text: "summarized" };
    main++;
    return main <= 8 ? { toolCalls: [{ name: "bulky", arguments: { n: main } }] } : { text: "all done" };
  });
  const harness = new Harness({
    workspace: dir,
    model,
    tools: [bulky],
    hooks: [...scripts.hooks],
    context: { contextWindow: 2_000, compaction: { threshold: 0.6, keepRecentTokens: 500 } },
  });
  return { harness, model };
}

const compactions = (events: readonly RunEvent[]) => events.filter((e) => e.type === "compaction");

describe("PreCompact", () => {
  it("runs before an automatic compaction with Claude Code's stdin, matched on the trigger", async () => {
    const auto = join(dir, "auto.jsonl");
    const manual = join(dir, "manual.jsonl");
    const seen = reports();
    const scripts = hooksFromSettings(
      {
        PreCompact: [
          { matcher: "auto", hooks: [{ type: "command", command: await script(dir, "a.sh", logTo(auto)) }] },
          {
            matcher: "manual",
            hooks: [{ type: "command", command: await script(dir, "m.sh", logTo(manual)) }],
          },
        ],
      },
      { cwd: dir, transcriptPath: "/sessions/s-1.jsonl", onReport: seen.onReport },
    );
    expect(seen.list).toEqual([]);
    const { harness } = compactingAgent(scripts);
    const stream = harness.stream({ prompt: "read", sessionId: "s-1" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    const logged = await lines(auto);
    expect(logged.length).toBe(compactions(events).length);
    expect(logged[0]).toEqual({
      session_id: "s-1",
      transcript_path: "/sessions/s-1.jsonl",
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PreCompact",
      trigger: "auto",
      custom_instructions: "",
    });
    expect(await lines(manual)).toEqual([]);
  });

  it("exit 2 blocks the compaction: the transcript stays whole and the block is reported", async () => {
    const seen = reports();
    const guard = await script(
      dir,
      "hold.mjs",
      `#!/usr/bin/env node
let text = "";
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
if (input.trigger === "auto") {
  process.stderr.write("a release is being tagged; compact later");
  process.exit(2);
}
`,
    );
    const scripts = hooksFromSettings(
      { PreCompact: [{ hooks: [{ type: "command", command: guard }] }] },
      { cwd: dir, onReport: seen.onReport },
    );
    const { harness, model } = compactingAgent(scripts);
    const stream = harness.stream({ prompt: "read" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(compactions(events)).toEqual([]);
    expect(model.requests.some((r) => r.system === DEFAULT_SUMMARY_INSTRUCTIONS)).toBe(false);
    expect(seen.list[0]).toMatchObject({
      event: "PreCompact",
      kind: "blocked",
      message: "a release is being tagged; compact later",
    });
    // Inside the run the block is also a fact on the event stream.
    expect(events.some((e) => e.type === "fact" && e.kind === "hook_scripts.report")).toBe(true);
  });

  it("a script that fails is reported and the compaction goes on", async () => {
    const seen = reports();
    const scripts = hooksFromSettings(
      { PreCompact: [{ hooks: [{ type: "command", command: "echo 'no disk' >&2; exit 1" }] }] },
      { cwd: dir, onReport: seen.onReport },
    );
    const { harness } = compactingAgent(scripts);
    const stream = harness.stream({ prompt: "read" });
    const events = await collectEvents(stream);
    expect(compactions(events).length).toBeGreaterThan(0);
    expect(seen.list[0]).toMatchObject({
      event: "PreCompact",
      kind: "failed",
      message: expect.stringContaining("no disk"),
    });
  });

  it("a manual compaction (harness.beforeCompaction) runs the manual matcher with the person's instructions", async () => {
    const manual = join(dir, "manual.jsonl");
    const log = await script(dir, "m.sh", logTo(manual));
    const veto = await script(
      dir,
      "veto.sh",
      `#!/bin/bash
if grep -q '"custom_instructions":"drop everything"'; then
  echo '{"decision":"block","reason":"that would drop the plan"}'
fi
`,
    );
    const scripts = hooksFromSettings(
      {
        PreCompact: [
          { matcher: "manual", hooks: [{ type: "command", command: log }] },
          { matcher: "manual", hooks: [{ type: "command", command: veto }] },
        ],
      },
      { cwd: dir },
    );
    const { harness } = compactingAgent(scripts);
    expect(await harness.beforeCompaction({ sessionId: "s-7", instructions: "keep the plan" })).toEqual({
      blocked: false,
    });
    expect(await lines(manual)).toMatchObject([
      {
        hook_event_name: "PreCompact",
        trigger: "manual",
        custom_instructions: "keep the plan",
        session_id: "s-7",
      },
    ]);
    expect(await harness.beforeCompaction({ instructions: "drop everything" })).toEqual({
      blocked: true,
      reason: "that would drop the plan",
    });
  });
});
