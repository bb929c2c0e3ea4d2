import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hooksFromSettings } from "../src/index.js";
import { agent, script } from "./setup.js";

let dir: string;
let cleanup: () => Promise<void>;
const stops: (() => Promise<void> | void)[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-transcript-"));
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await cleanup();
});

const hasJq = (() => {
  try {
    execFileSync("jq", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

// What Claude Code users' scripts do with transcript_path: read it with jq.
const STOP = (out: string) => `#!/bin/bash
t=$(jq -r .transcript_path)
{
  echo "last: $(jq -r 'select(.type=="assistant") | .message.content[] | select(.type=="text") | .text' "$t" | tail -n 1)"
  jq -r 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | "tool: " + .name + " " + .input.command' "$t"
  jq -r 'select(.type=="user") | .message.content | if type=="string" then "prompt: " + . else (.[] | select(.type=="tool_result") | "result: " + .content) end' "$t"
} > "${out}"
`;

// A PreToolUse script sees the call it guards already in the transcript, as the model's tool_use.
const PRE = (out: string) => `#!/bin/bash
input=$(cat)
t=$(echo "$input" | jq -r .transcript_path)
id=$(echo "$input" | jq -r .tool_use_id)
jq -r --arg id "$id" 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use" and .id==$id) | .name' "$t" >> "${out}"
`;

describe.skipIf(!hasJq)(
  `transcript_path in Claude Code's shape${hasJq ? "" : " (skipped: needs jq)"}`,
  () => {
    it("a Stop script reads the prompts, the tool calls, their results and the last answer with jq", async () => {
      const stopOut = join(dir, "stop.txt");
      const preOut = join(dir, "pre.txt");
      const transcripts = join(dir, "transcripts");
      const scripts = hooksFromSettings(
        {
          Stop: [{ hooks: [{ type: "command", command: await script(dir, "stop.sh", STOP(stopOut)) }] }],
          PreToolUse: [
            {
              matcher: "bash",
              hooks: [{ type: "command", command: await script(dir, "pre.sh", PRE(preOut)) }],
            },
          ],
        },
        { cwd: dir, transcriptDir: transcripts },
      );
      const { harness, stop } = await agent(dir, scripts.hooks, [
        { toolCalls: [{ name: "bash", arguments: { command: "echo hello from bash" } }] },
        { text: "All done." },
        { text: "Second answer." },
      ]);
      stops.push(stop);
      const first = await harness.run({
        prompt: "say hello",
        sessionId: "s-1",
        observers: [scripts.observer],
      });
      expect(first.stopReason).toBe("completed");
      expect(await readFile(preOut, "utf8")).toBe("bash\n");
      const seen = await readFile(stopOut, "utf8");
      expect(seen).toContain("last: All done.");
      expect(seen).toContain("tool: bash echo hello from bash");
      expect(seen).toContain("prompt: say hello");
      expect(seen).toMatch(/result: .*hello from bash/);

      // The next run of the session continues the same file and its chain.
      await harness.run({
        prompt: "again",
        sessionId: "s-1",
        history: first.messages,
        observers: [scripts.observer],
      });
      expect(await readFile(stopOut, "utf8")).toContain("last: Second answer.");
      const lines = (await readFile(join(transcripts, "s-1.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.type)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      expect(lines[0].parentUuid).toBeNull();
      for (const [index, line] of lines.entries()) {
        expect(line).toMatchObject({ sessionId: "s-1", cwd: dir, isSidechain: false });
        if (index > 0) expect(line.parentUuid).toBe(lines[index - 1].uuid);
      }
      expect(lines[1].message).toMatchObject({
        role: "assistant",
        stop_reason: "tool_use",
        content: [{ type: "tool_use", name: "bash", input: { command: "echo hello from bash" } }],
      });
      expect(lines[2].message.content[0]).toMatchObject({
        type: "tool_result",
        tool_use_id: lines[1].message.content[0].id,
        is_error: false,
      });
    });

    it("transcriptPath given as is wins, and without either the field is empty", async () => {
      const out = join(dir, "paths.txt");
      const log = await script(dir, "log.sh", `#!/bin/bash\njq -r .transcript_path >> "${out}"\n`);
      const settings = { UserPromptSubmit: [{ hooks: [{ type: "command", command: log }] }] };
      for (const options of [{ transcriptPath: "/elsewhere/t.jsonl", transcriptDir: join(dir, "t") }, {}]) {
        const scripts = hooksFromSettings(settings, { cwd: dir, ...options });
        const { harness, stop } = await agent(dir, scripts.hooks, [{ text: "ok" }]);
        stops.push(stop);
        await harness.run({ prompt: "hi", observers: [scripts.observer] });
      }
      expect(await readFile(out, "utf8")).toBe("/elsewhere/t.jsonl\n\n");
    });
  },
);
