import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness } from "@bridle/core";
import { createOpenAIResponsesModel } from "@bridle/providers-openai";
import { FakeProviderServer, jsonEvent, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApplyPatchTool } from "../src/index.js";

// The free-form form end to end: OpenAI Responses on the wire (a loopback fake server), apply_patch
// declared as a custom tool with its grammar, the model's raw patch applied to real files.
let server: FakeProviderServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  server = await FakeProviderServer.start();
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

/** A Responses stream in which the model calls a custom tool with raw text. */
function customCall(callId: string, name: string, input: string) {
  const response = {
    id: `resp_${callId}`,
    object: "response",
    model: "gpt-5",
    output: [],
    status: "in_progress",
  };
  const item = { type: "custom_tool_call", id: `ctc_${callId}`, call_id: callId, name, input };
  const at = { item_id: item.id, output_index: 0 };
  return [
    jsonEvent({ type: "response.created", response }, true),
    jsonEvent({ type: "response.output_item.added", output_index: 0, item: { ...item, input: "" } }, true),
    jsonEvent({ type: "response.custom_tool_call_input.delta", ...at, delta: input }, true),
    jsonEvent({ type: "response.custom_tool_call_input.done", ...at, input }, true),
    jsonEvent({ type: "response.output_item.done", output_index: 0, item }, true),
    jsonEvent(
      { type: "response.completed", response: { ...response, status: "completed", usage: null } },
      true,
    ),
  ];
}

it("the model writes a raw patch through a custom tool and the files change", async () => {
  await writeFile(join(dir, "greet.py"), 'def greet():\r\n    print("Hi")\r\n');
  const patch = [
    "*** Begin Patch",
    "*** Update File: greet.py",
    "@@ def greet():",
    '-    print("Hi")',
    '+    print("Hello")',
    "*** Add File: notes/todo.md",
    "+- ship it",
    "*** End Patch",
  ].join("\n");
  server.enqueue(
    {
      kind: "stream",
      events: openaiResponsesFormat.events({
        toolCalls: [{ id: "call_read", name: "read_file", arguments: '{"path":"greet.py"}' }],
      }),
    },
    { kind: "stream", events: customCall("call_patch", "apply_patch", patch) },
    { kind: "stream", events: openaiResponsesFormat.events({ text: "done" }) },
  );
  const fs = createFsTools();
  const harness = new Harness({
    model: createOpenAIResponsesModel({ model: "gpt-5", apiKey: "k", baseURL: `${server.url}/v1` }),
    tools: [fs.readFile, createApplyPatchTool({ tracker: fs.tracker, form: "freeform" })],
    workspace: dir,
  });
  const result = await harness.run({ prompt: "say hello" });
  expect(result.stopReason).toBe("completed");
  expect(await readFile(join(dir, "greet.py"), "utf8")).toBe('def greet():\r\n    print("Hello")\r\n');
  expect(await readFile(join(dir, "notes/todo.md"), "utf8")).toBe("- ship it\n");

  const first = server.requests[0]?.body as { tools: { type: string; name: string; format?: unknown }[] };
  expect(first.tools.map((tool) => [tool.type, tool.name])).toEqual([
    ["function", "read_file"],
    ["custom", "apply_patch"],
  ]);
  expect(first.tools[1]?.format).toMatchObject({ type: "grammar", syntax: "lark" });
  const last = server.requests[2]?.body as { input: { type?: string; output?: unknown }[] };
  const output = last.input.find((entry) => entry.type === "custom_tool_call_output");
  expect(output?.output).toBe("Success. Updated the following files:\nM greet.py\nA notes/todo.md");
});
