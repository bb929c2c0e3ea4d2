import { defineTool, Harness } from "@bridle/core";
import { anthropicMessagesFormat, FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "../src/index.js";

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

describe("a Messages turn with stop_reason max_tokens", () => {
  it("never runs its tool call, though the JSON parses, and tells the model it was truncated", async () => {
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
      events: anthropicMessagesFormat.events({
        toolCalls: [{ id: "toolu_1", name: "write_file", arguments: '{"path":"a.txt","content":"half"}' }],
        stopReason: "max_tokens",
      }),
    });
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "I will split it." }) });
    const model = createAnthropicModel({ model: "claude-test", apiKey: "k", baseURL: server.url });
    const result = await new Harness({ model, tools: [write], workspace: dir }).run({
      prompt: "write a.txt",
    });

    expect(result.stopReason).toBe("completed");
    expect(ran).toEqual([]);
    const answer = result.messages.find((m) => m.role === "tool");
    expect(answer?.role === "tool" && answer.errorKind).toBe("InvalidInput");
    expect(JSON.stringify(server.requests[1]?.body)).toContain("was truncated");
  });
});
