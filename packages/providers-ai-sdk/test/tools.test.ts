import { access, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  defineTool,
  Harness,
  Workspace,
} from "@bridle/core";
import { FakeProviderServer, openaiChatFormat, tempWorkspace } from "@bridle/testing";
import { isStepCount, streamText } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAISDKModel, toAISDKTools } from "../src/index.js";

let server: FakeProviderServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  server = await FakeProviderServer.start();
  ({ dir, cleanup } = await tempWorkspace("bridle-ai-sdk-tools-"));
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

// A real Bridle tool: it writes into the workspace and asks for approval first.
const writeNote = defineTool({
  name: "write_note",
  description: "Writes a note file in the workspace",
  inputSchema: z.object({ name: z.string().regex(/^[a-z]+\.txt$/), text: z.string() }),
  annotations: { requires_approval: true },
  async execute(args, env) {
    await writeFile(join(env.workspace.root, args.name), args.text);
    return { content: `wrote ${args.name}`, details: { bytes: args.text.length } };
  },
});

// The same tool, saying why each call needs a person (as a command policy does).
const writeNoteWithWhy = defineTool({
  ...writeNote,
  approvalScope: (args) => ({ why: `${args.name} would be overwritten` }),
});

function approver(answer: ApprovalAnswer): Approver & { readonly asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    decide: async (request) => {
      asked.push(request);
      return answer;
    },
  };
}

/** One step that calls write_note with `args`, then (if the call is answered) a closing text. */
async function run(args: string, options: { approver?: Approver; tool?: typeof writeNote }) {
  server.enqueue(
    {
      kind: "stream",
      events: openaiChatFormat.events({ toolCalls: [{ id: "call_1", name: "write_note", arguments: args }] }),
    },
    { kind: "stream", events: openaiChatFormat.events({ text: "done" }) },
  );
  const model = createOpenAICompatible({
    name: "local",
    baseURL: openaiChatFormat.baseUrl(server.url),
    apiKey: "k",
  }).chatModel("m");
  const { tool = writeNote, ...rest } = options;
  const tools = toAISDKTools([tool], { workspace: new Workspace(dir), runId: "run-1", ...rest });
  // streamText, as the fake server streams; its promises settle once the stream has been consumed.
  const errors: unknown[] = [];
  const stream = streamText({
    model,
    tools,
    prompt: "write a note",
    stopWhen: isStepCount(2),
    maxRetries: 0,
    onError: ({ error }) => {
      errors.push(error);
    },
  });
  await stream.consumeStream();
  expect(errors).toEqual([]);
  const result = { steps: await stream.steps, content: await stream.content, text: await stream.text };
  return { result, toolMessage: () => toolMessageSent(1) };
}

/** What the model was sent as the tool result in request `index`. */
function toolMessageSent(index: number): { content?: unknown } | undefined {
  const messages =
    (server.requests[index]?.body as { messages: { role: string }[] } | undefined)?.messages ?? [];
  return messages.find((message) => message.role === "tool") as { content?: unknown } | undefined;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("toAISDKTools", () => {
  it("runs a call the approver allows, and the model sees the tool's output", async () => {
    const allow = approver({ approved: true });
    const { result, toolMessage } = await run('{"name":"note.txt","text":"hello"}', { approver: allow });
    expect(await readFile(join(dir, "note.txt"), "utf8")).toBe("hello");
    expect(allow.asked).toHaveLength(1);
    expect(allow.asked[0]).toMatchObject({
      runId: "run-1",
      toolCall: { id: "call_1", name: "write_note" },
      args: { name: "note.txt", text: "hello" },
      annotations: { requires_approval: true },
    });
    expect(toolMessage()).toMatchObject({ tool_call_id: "call_1", content: "wrote note.txt" });
    // The application gets the result a Bridle run would record, details included.
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      role: "tool",
      isError: false,
      details: { bytes: 5 },
    });
    expect(result.text).toBe("done");
  });

  it("does not run a call the approver refuses, and tells the model why", async () => {
    const deny = approver({ approved: false, reason: "notes are read-only today" });
    const { toolMessage } = await run('{"name":"note.txt","text":"hello"}', { approver: deny });
    expect(await exists(join(dir, "note.txt"))).toBe(false);
    expect(toolMessage()).toMatchObject({
      content: "Denied: the user did not approve this call: notes are read-only today",
    });
  });

  it("tells the model of a refusal in a Bridle run's words, with why the call asked", async () => {
    const reason = "notes are read-only today";
    const { toolMessage } = await run('{"name":"note.txt","text":"hello"}', {
      approver: approver({ approved: false, reason }),
      tool: writeNoteWithWhy,
    });
    expect(await exists(join(dir, "note.txt"))).toBe(false);
    const sent = toolMessage()?.content;
    expect(sent).toBe(
      `Denied: the user did not approve this call: ${reason} (it asked because note.txt would be overwritten)`,
    );

    // The same call refused by the same approver in a Bridle run on the same model reaches the model
    // in the same words.
    server.enqueue(
      {
        kind: "stream",
        events: openaiChatFormat.events({
          toolCalls: [{ id: "call_2", name: "write_note", arguments: '{"name":"note.txt","text":"hello"}' }],
        }),
      },
      { kind: "stream", events: openaiChatFormat.events({ text: "done" }) },
    );
    const model = createAISDKModel({
      model: createOpenAICompatible({
        name: "local",
        baseURL: openaiChatFormat.baseUrl(server.url),
      }).chatModel("m"),
    });
    const harness = new Harness({
      model,
      tools: [writeNoteWithWhy],
      workspace: dir,
      approver: approver({ approved: false, reason }),
    });
    const result = await harness.run({ prompt: "write a note" });
    expect(result.stopReason).toBe("completed");
    expect(await exists(join(dir, "note.txt"))).toBe(false);
    expect(toolMessageSent(3)?.content).toBe(sent);
  });

  it("refuses a call that needs approval when no approver is given", async () => {
    const { toolMessage } = await run('{"name":"note.txt","text":"hello"}', {});
    expect(await exists(join(dir, "note.txt"))).toBe(false);
    expect(toolMessage()).toMatchObject({
      content: expect.stringMatching(/^Denied: write_note requires approval and no approver is configured/),
    });
  });

  it("turns the approver's ask into the AI SDK's own approval request, and runs nothing until it is answered", async () => {
    const ask = approver("ask");
    const { result } = await run('{"name":"note.txt","text":"hello"}', { approver: ask });
    expect(await exists(join(dir, "note.txt"))).toBe(false);
    expect(server.requests).toHaveLength(1);
    const request = result.content.find((part) => part.type === "tool-approval-request");
    expect(request).toMatchObject({ toolCall: { toolCallId: "call_1", toolName: "write_note" } });
  });

  it("answers an invalid call with an InvalidInput result the model can correct, before asking anyone", async () => {
    const allow = approver({ approved: true });
    const { toolMessage } = await run('{"name":"../escape.sh","text":"x"}', { approver: allow });
    expect(allow.asked).toHaveLength(0);
    expect(await exists(join(dir, "..", "escape.sh"))).toBe(false);
    expect(toolMessage()).toMatchObject({ content: expect.stringMatching(/^InvalidInput: /) });
  });
});
