import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { defineTool, Harness } from "@bridle/core";
import { FakeProviderServer, openaiChatFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { z } from "zod";
import { createAISDKModel } from "../src/index.js";

let server: FakeProviderServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  server = await FakeProviderServer.start();
  ({ dir, cleanup } = await tempWorkspace("bridle-ai-sdk-run-"));
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

it("runs a Bridle agent on an AI SDK model: a tool call, its result, the answer", async () => {
  await writeFile(join(dir, "a.txt"), "forty-two");
  const readTool = defineTool({
    name: "read_file",
    description: "Reads a file in the workspace",
    inputSchema: z.object({ path: z.string() }),
    annotations: { read_only: true },
    async execute(args, env) {
      return { content: await readFile(join(env.workspace.root, args.path), "utf8") };
    },
  });
  server.enqueue(
    {
      kind: "stream",
      events: openaiChatFormat.events({
        toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' }],
        usage: { inputTokens: 50, outputTokens: 10 },
      }),
    },
    {
      kind: "stream",
      events: openaiChatFormat.events({
        text: "The file says forty-two.",
        usage: { inputTokens: 70, outputTokens: 8 },
      }),
    },
  );
  const model = createAISDKModel({
    model: createOpenAICompatible({
      name: "local",
      baseURL: openaiChatFormat.baseUrl(server.url),
      includeUsage: true,
    }).chatModel("qwen3"),
  });
  const harness = new Harness({ model, tools: [readTool], workspace: dir });
  const result = await harness.run({ prompt: "what does a.txt say?" });
  expect(result.stopReason).toBe("completed");
  expect(result.finalText).toBe("The file says forty-two.");
  expect(result.usage.tokens).toMatchObject({ inputTokens: 120, outputTokens: 18 });
  const second = server.requests[1]?.body as { messages: { role: string; content: unknown }[] } | undefined;
  expect(second?.messages.at(-1)).toMatchObject({
    role: "tool",
    tool_call_id: "call_1",
    content: "forty-two",
  });
});
