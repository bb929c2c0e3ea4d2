import { defineTool, Harness } from "@bridle/core";
import { anthropicMessagesFormat, FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "../src/index.js";

const readNote = defineTool({
  name: "read_note",
  description: "Read a note by name",
  inputSchema: z.object({ name: z.string() }),
  execute: async ({ name }) => ({ content: `note ${name}: buy milk` }),
});
const listNotes = defineTool({
  name: "list_notes",
  description: "List the notes",
  inputSchema: z.object({}),
  execute: async () => ({ content: "todo, shopping" }),
});

type Block = Record<string, unknown>;
type Body = {
  system: Block[];
  tools: Block[];
  messages: Array<{ role: string; content: Block[] }>;
};

let server: FakeProviderServer;
let workspace: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  server = await FakeProviderServer.start();
  workspace = await tempWorkspace();
});
afterEach(async () => {
  await Promise.all([server.close(), workspace.cleanup()]);
});

/** The body without its cache markers: what Anthropic hashes for the prefix. */
function unmarked<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (key, inner) => (key === "cache_control" ? undefined : inner)));
}

/** Indexes of the messages whose last block carries a breakpoint. */
function markedMessages(body: Body): number[] {
  return body.messages.flatMap((message, index) => (message.content.at(-1)?.cache_control ? [index] : []));
}

describe("Anthropic cache breakpoints over a multi-turn run", () => {
  it("keeps every request's prefix in the next one and marks again where the previous request wrote", async () => {
    const call = (id: string, name: string, args: string) => ({
      kind: "stream" as const,
      events: anthropicMessagesFormat.events({ toolCalls: [{ id, name, arguments: args }] }),
    });
    server.enqueue(
      call("toolu_1", "list_notes", "{}"),
      call("toolu_2", "read_note", '{"name":"todo"}'),
      call("toolu_3", "read_note", '{"name":"shopping"}'),
      { kind: "stream", events: anthropicMessagesFormat.events({ text: "Buy milk, twice." }) },
    );
    const model = createAnthropicModel({
      model: "claude-sonnet-4-6",
      apiKey: "k",
      baseURL: anthropicMessagesFormat.baseUrl(server.url),
    });
    const harness = new Harness({
      model,
      tools: [readNote, listNotes],
      workspace: workspace.dir,
      system: "You read notes.",
    });
    const first = await harness.run({ prompt: "What do my notes say?" });
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "Milk." }) });
    await harness.run({ prompt: "In one word?", history: first.messages });

    const bodies = server.requests.map((request) => request.body as Body);
    expect(bodies).toHaveLength(5);
    for (const [n, body] of bodies.entries()) {
      // Four breakpoints at most (Anthropic's limit): the system prompt, the last tool, two user turns.
      expect(JSON.stringify(body).match(/"cache_control"/g)?.length).toBeLessThanOrEqual(4);
      expect(body.system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      const marked = markedMessages(body);
      // The newest message is always a user turn, and always marked: the next request reads it.
      expect(marked.at(-1)).toBe(body.messages.length - 1);
      const next = bodies[n + 1];
      if (!next) continue;
      expect(unmarked(next.system)).toEqual(unmarked(body.system));
      expect(unmarked(next.tools)).toEqual(unmarked(body.tools));
      expect(unmarked(next.messages.slice(0, body.messages.length))).toEqual(unmarked(body.messages));
      // Where this request wrote the cache, the next one has a breakpoint too, so it reads it exactly.
      expect(markedMessages(next)).toContain(body.messages.length - 1);
    }
  });
});
