import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { collectEvents, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hooksFromSettings } from "../src/index.js";
import { agent, reports, script, sentText } from "./setup.js";

let dir: string;
let cleanup: () => Promise<void>;
const stops: (() => Promise<void> | void)[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-scripts-"));
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await cleanup();
});

const bashCall = (command: string) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

async function run(settings: unknown, turns: Parameters<typeof agent>[2], prompt = "go") {
  const seen = reports();
  const scripts = hooksFromSettings(settings, { cwd: dir, sessionId: "s-1", onReport: seen.onReport });
  const { model, harness, stop } = await agent(dir, scripts.hooks, turns);
  stops.push(stop);
  const stream = harness.stream({ prompt });
  const events = await collectEvents(stream);
  const result = await stream.result;
  return { model, result, events, reports: seen.list };
}

describe("PreToolUse", () => {
  it("blocks a call when the script exits 2, and the model sees its stderr", async () => {
    const guard = await script(
      dir,
      "block-rm.sh",
      `#!/bin/bash
input=$(cat)
if echo "$input" | grep -q '"command":"rm '; then
  echo "Blocked: rm is not allowed here" >&2
  exit 2
fi
exit 0
`,
    );
    const { model, result } = await run(
      { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: guard }] }] },
      [bashCall("rm -rf build"), { text: "ok, I will not" }],
    );
    expect(result.stopReason).toBe("completed");
    const second = sentText(model.requests[1]?.messages);
    expect(second).toContain("Blocked: rm is not allowed here");
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({
      isError: true,
      errorKind: "Denied",
    });
  });

  it("denies by JSON permissionDecision, with its reason, from a node script", async () => {
    const guard = await script(
      dir,
      "deny.mjs",
      `#!/usr/bin/env node
let text = "";
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
if (input.tool_name === "write_file" && input.tool_input.path.endsWith(".env")) {
  console.log(JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "never write .env files; put settings in config.json",
    },
  }));
}
`,
    );
    const { model, result } = await run(
      {
        PreToolUse: [
          { matcher: "Write|write_file", hooks: [{ type: "command", command: guard, timeout: 30 }] },
        ],
      },
      [
        { toolCalls: [{ name: "write_file", arguments: { path: ".env", content: "KEY=1\n" } }] },
        { text: "noted" },
      ],
    );
    expect(sentText(model.requests[1]?.messages)).toContain(
      "never write .env files; put settings in config.json",
    );
    await expect(readFile(join(dir, ".env"), "utf8")).rejects.toThrow();
    expect(result.stopReason).toBe("completed");
  });

  it("rewrites the tool input with updatedInput: the command that runs is the hook's", async () => {
    const rewrite = await script(
      dir,
      "quiet.mjs",
      `#!/usr/bin/env node
let text = "";
for await (const chunk of process.stdin) text += chunk;
const { tool_input } = JSON.parse(text);
console.log(JSON.stringify({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "allow",
    updatedInput: { ...tool_input, command: tool_input.command.replace("original", "rewritten-by-hook") },
  },
}));
`,
    );
    const { model } = await run(
      { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: rewrite }] }] },
      [bashCall("echo original"), { text: "done" }],
    );
    const second = sentText(model.requests[1]?.messages);
    expect(second).toContain("rewritten-by-hook");
  });

  it("denies the call when the script fails or times out, and reports it", async () => {
    const broken = await script(
      dir,
      "broken.sh",
      "#!/bin/bash\necho 'jq: command not found' >&2\nexit 127\n",
    );
    const slow = await script(dir, "slow.sh", "#!/bin/bash\nsleep 30 & wait\n");
    const {
      model,
      result,
      events,
      reports: seen,
    } = await run(
      {
        PreToolUse: [
          { matcher: "bash", hooks: [{ type: "command", command: broken }] },
          { matcher: "list_dir", hooks: [{ type: "command", command: slow, timeout: 1 }] },
        ],
      },
      [
        bashCall("touch made-it"),
        { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
        { text: "ok" },
      ],
    );
    expect(result.stopReason).toBe("completed");
    expect(sentText(model.requests[1]?.messages)).toContain("exited with code 127: jq: command not found");
    expect(sentText(model.requests[2]?.messages)).toContain("timed out after 1s and was killed");
    await expect(readFile(join(dir, "made-it"))).rejects.toThrow();
    expect(seen.filter((r) => r.kind === "failed").map((r) => r.event)).toEqual(["PreToolUse", "PreToolUse"]);
    const facts = events.filter((e) => e.type === "fact" && e.kind === "hook_scripts.report");
    expect(facts.length).toBeGreaterThanOrEqual(2);
  });
});

describe("PostToolUse", () => {
  it("gets Claude Code's stdin fields, and a logging script leaves the result alone", async () => {
    const log = join(dir, "tool-log.jsonl");
    const logger = await script(dir, "log.sh", `#!/bin/bash\ncat >> "${log}"\necho >> "${log}"\n`);
    const { model } = await run({ PostToolUse: [{ hooks: [{ type: "command", command: logger }] }] }, [
      bashCall("echo hello-from-bash"),
      { text: "done" },
    ]);
    const lines = (await readFile(log, "utf8")).split("\n").filter((line) => line.trim() !== "");
    expect(lines).toHaveLength(1);
    const input = JSON.parse(lines[0] ?? "{}");
    expect(input).toMatchObject({
      session_id: "s-1",
      cwd: dir,
      hook_event_name: "PostToolUse",
      tool_name: "bash",
      tool_input: { command: "echo hello-from-bash" },
      permission_mode: "default",
    });
    expect(typeof input.tool_use_id).toBe("string");
    expect(JSON.stringify(input.tool_response)).toContain("hello-from-bash");
    const second = sentText(model.requests[1]?.messages);
    expect(second).toContain("hello-from-bash");
    expect(second).not.toContain("[hook feedback]");
  });

  it("feeds an exit-2 complaint to the model beside the result, and PostToolUseFailure sees failures", async () => {
    const lint = await script(
      dir,
      "lint.sh",
      "#!/bin/bash\necho 'lint: trailing whitespace on line 1' >&2\nexit 2\n",
    );
    const failures = join(dir, "failures.jsonl");
    const onFailure = await script(dir, "failure.sh", `#!/bin/bash\ncat >> "${failures}"\n`);
    const { model } = await run(
      {
        PostToolUse: [{ matcher: "write_file", hooks: [{ type: "command", command: lint }] }],
        PostToolUseFailure: [{ matcher: "read_file", hooks: [{ type: "command", command: onFailure }] }],
      },
      [
        { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x \n" } }] },
        { toolCalls: [{ name: "read_file", arguments: { path: "missing.txt" } }] },
        { text: "done" },
      ],
    );
    expect(sentText(model.requests[1]?.messages)).toContain("lint: trailing whitespace on line 1");
    const failure = JSON.parse(await readFile(failures, "utf8"));
    expect(failure).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "read_file" });
    expect(typeof failure.error).toBe("string");
  });
});

describe("UserPromptSubmit", () => {
  it("adds what the script prints as context the model sees with the prompt", async () => {
    const context = await script(
      dir,
      "context.sh",
      `#!/bin/bash
prompt=$(cat | grep -o '"prompt":"[^"]*"')
echo "Sprint goal: ship the parser. (seen: $prompt)"
`,
    );
    const { model } = await run(
      { UserPromptSubmit: [{ hooks: [{ type: "command", command: context }] }] },
      [{ text: "ok" }],
      "what should I do?",
    );
    const first = sentText(model.requests[0]?.messages);
    expect(first).toContain("Sprint goal: ship the parser.");
    expect(first).toContain('"prompt":"what should I do?"');
  });

  it("blocks the prompt by decision: block before any model request", async () => {
    const block = await script(
      dir,
      "block.sh",
      `#!/bin/bash\necho '{"decision":"block","reason":"prompts may not contain passwords"}'\n`,
    );
    const { model, result } = await run(
      { UserPromptSubmit: [{ hooks: [{ type: "command", command: block }] }] },
      [{ text: "never" }],
      "my password is hunter2",
    );
    expect(model.requests).toHaveLength(0);
    expect(result.stopReason).toBe("hook_cancelled");
    expect(result.error?.message).toContain("prompts may not contain passwords");
  });
});

describe("Stop", () => {
  it("blocks the first stop with its reason and lets the second one through", async () => {
    const stopper = await script(
      dir,
      "stop.mjs",
      `#!/usr/bin/env node
let text = "";
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
if (!input.stop_hook_active) {
  console.log(JSON.stringify({ decision: "block", reason: "Run the tests before you finish." }));
}
`,
    );
    const { model, result } = await run({ Stop: [{ hooks: [{ type: "command", command: stopper }] }] }, [
      { text: "all done" },
      { text: "tests pass, done" },
    ]);
    expect(model.requests).toHaveLength(2);
    expect(sentText(model.requests[1]?.messages)).toContain("Run the tests before you finish.");
    expect(result.stopReason).toBe("completed");
    expect(result.finalText).toBe("tests pass, done");
  });
});
