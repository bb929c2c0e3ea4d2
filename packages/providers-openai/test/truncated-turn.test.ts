import { defineTool, Harness, type Model } from "@bridle/core";
import {
  FakeProviderServer,
  type FakeWireFormat,
  openaiChatFormat,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAIChatModel, createOpenAIResponsesModel } from "../src/index.js";

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

const adapters: [string, FakeWireFormat, () => Model][] = [
  [
    "Responses (incomplete: max_output_tokens)",
    openaiResponsesFormat,
    () => createOpenAIResponsesModel({ model: "gpt-5", apiKey: "k", baseURL: `${server.url}/v1` }),
  ],
  [
    "Chat Completions (finish_reason: length)",
    openaiChatFormat,
    () => createOpenAIChatModel({ model: "gpt-4.1", apiKey: "k", baseURL: `${server.url}/v1` }),
  ],
];

describe.each(adapters)("%s cut off at the output limit", (_, format, create) => {
  it("never runs the turn's tool call, though its JSON parses, and tells the model it was truncated", async () => {
    const ran: string[] = [];
    const write = defineTool({
      name: "write_file",
      description: "writes a file",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path }) => {
        ran.push(path);
        return { content: "written" };
      },
    });
    server.enqueue({
      kind: "stream",
      events: format.events({
        toolCalls: [{ id: "call_1", name: "write_file", arguments: '{"path":"a.txt","content":"half"}' }],
        stopReason: "max_tokens",
      }),
    });
    server.enqueue({ kind: "stream", events: format.events({ text: "I will split it." }) });
    const harness = new Harness({ model: create(), tools: [write], workspace: dir });
    const result = await harness.run({ prompt: "write a.txt" });

    expect(result.stopReason).toBe("completed");
    expect(ran).toEqual([]);
    const answer = result.messages.find((m) => m.role === "tool");
    expect(answer?.role === "tool" && answer.errorKind).toBe("InvalidInput");
    // The second request carries the truncation notice back to the model, in the provider's wire format.
    expect(JSON.stringify(server.requests[1]?.body)).toContain("was truncated");
  });
});
