import type { Message, ToolSchema } from "@bridle/core";
import { userText } from "@bridle/core";
import { collectModelEvents, FakeProviderServer, jsonEvent, openaiResponsesFormat } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createOpenAIResponsesModel } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(() => server.close());

const grammar = { type: "grammar", syntax: "lark", definition: 'start: "*** Begin" /[^\\n]*/' } as const;
const tools: ToolSchema[] = [
  {
    name: "apply_patch",
    description: "Apply a patch",
    inputSchema: { type: "object", properties: { input: { type: "string" } } },
    format: grammar,
  },
  { name: "read_file", description: "Read a file", inputSchema: { type: "object", properties: {} } },
];
const raw = '*** Begin Patch\n*** Add File: a.txt\n+"quoted"\n*** End Patch\n';
const model = () => createOpenAIResponsesModel({ model: "gpt-5", apiKey: "k", baseURL: `${server.url}/v1` });

it("a custom tool call's raw text becomes the call's { input } argument", async () => {
  const response = { id: "resp_1", object: "response", model: "gpt-5", output: [], status: "in_progress" };
  const item = { type: "custom_tool_call", id: "ctc_1", call_id: "call_p", name: "apply_patch", input: raw };
  server.enqueue({
    kind: "stream",
    events: [
      jsonEvent({ type: "response.created", response }, true),
      jsonEvent({ type: "response.output_item.added", output_index: 0, item: { ...item, input: "" } }, true),
      jsonEvent(
        {
          type: "response.custom_tool_call_input.delta",
          item_id: "ctc_1",
          output_index: 0,
          delta: raw.slice(0, 9),
        },
        true,
      ),
      jsonEvent(
        { type: "response.custom_tool_call_input.done", item_id: "ctc_1", output_index: 0, input: raw },
        true,
      ),
      jsonEvent({ type: "response.output_item.done", output_index: 0, item }, true),
      jsonEvent(
        { type: "response.completed", response: { ...response, status: "completed", usage: null } },
        true,
      ),
    ],
  });
  const result = await collectModelEvents(model(), {
    messages: [userText("patch it")],
    tools,
    options: { toolChoice: { name: "apply_patch" } },
    signal: new AbortController().signal,
  });
  expect(result.terminal).toMatchObject({
    type: "done",
    stopReason: "tool_use",
    message: {
      content: [
        { type: "tool_call", id: "call_p", name: "apply_patch", arguments: JSON.stringify({ input: raw }) },
      ],
    },
  });
  const body = server.requests[0]?.body as Record<string, unknown>;
  expect(body.tools).toEqual([
    { type: "custom", name: "apply_patch", description: "Apply a patch", format: grammar },
    {
      type: "function",
      name: "read_file",
      description: "Read a file",
      parameters: tools[1]?.inputSchema,
      strict: false,
    },
  ]);
  expect(body.tool_choice).toEqual({ type: "custom", name: "apply_patch" });
});

it("replays calls to a custom tool as custom items, and function calls as before", async () => {
  server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "ok" }) });
  const messages: Message[] = [
    userText("go"),
    {
      role: "assistant",
      content: [
        { type: "tool_call", id: "call_p", name: "apply_patch", arguments: JSON.stringify({ input: raw }) },
        { type: "tool_call", id: "call_r", name: "read_file", arguments: '{"path":"a.txt"}' },
      ],
    },
    {
      role: "tool",
      toolCallId: "call_p",
      toolName: "apply_patch",
      content: [{ type: "text", text: "Success." }],
    },
    { role: "tool", toolCallId: "call_r", toolName: "read_file", content: [{ type: "text", text: "text" }] },
  ] as Message[];
  await collectModelEvents(model(), { messages, tools, signal: new AbortController().signal });
  const body = server.requests[0]?.body as { input: unknown[] };
  expect(body.input.slice(1)).toEqual([
    { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: raw },
    { type: "function_call", call_id: "call_r", name: "read_file", arguments: '{"path":"a.txt"}' },
    { type: "custom_tool_call_output", call_id: "call_p", output: "Success." },
    { type: "function_call_output", call_id: "call_r", output: "text" },
  ]);
});
