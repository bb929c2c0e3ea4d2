import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import {
  anthropicMessagesFormat,
  type FakeTurn,
  type FakeWireFormat,
  openaiChatFormat,
  openaiResponsesFormat,
} from "../src/index.js";
import { describeWithSharedFixtures } from "../src/vitest.js";

type Json = Record<string, unknown>;

/** Every field path (a.b.c) a JSON value holds, with arrays looked into through their items. */
function paths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => paths(item, prefix));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value as Json).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...paths(child, path)];
  });
}

/** The kind of an event: its type, and for blocks and items the nested type, so like is compared with like. */
function kindOf(event: Json): string {
  const nested = (event.content_block ?? event.delta ?? event.item) as Json | undefined;
  const type = (event.type as string | undefined) ?? (Array.isArray(event.choices) ? "chunk" : "?");
  return typeof nested?.type === "string" ? `${type}/${nested.type}` : type;
}

function recorded(dir: string): Map<string, Set<string>> {
  const fields = new Map<string, Set<string>>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      let event: Json;
      try {
        event = JSON.parse(line) as Json;
      } catch {
        continue;
      }
      const kind = kindOf(event);
      const known = fields.get(kind) ?? new Set<string>();
      for (const path of paths(event)) known.add(path);
      fields.set(kind, known);
    }
  }
  return fields;
}

const turns: FakeTurn[] = [
  {
    text: "Hello there",
    usage: { inputTokens: 100, cacheReadTokens: 40, outputTokens: 9, reasoningTokens: 3 },
  },
  {
    reasoning: "think",
    reasoningBlob: "blob",
    toolCalls: [{ id: "call_1", name: "weather", arguments: '{"city":"Rome"}' }],
  },
];

// Each fake event must use only fields the provider really sends for that kind of event. Only real
// recordings can say that, so this runs where the shared fixtures are (CI) and is skipped elsewhere.
describeWithSharedFixtures("provider-streams", "fake wire formats match recorded real streams", (root) => {
  const cases: Array<[FakeWireFormat, string, readonly string[]]> = [
    [anthropicMessagesFormat, "anthropic-messages", ["message.content", "content_block.input"]],
    [openaiResponsesFormat, "openai-responses", []],
    [openaiChatFormat, "openai-chat", []],
  ];
  it.each(cases)("%s", (format, folder) => {
    const real = recorded(join(root, folder));
    for (const turn of turns) {
      for (const event of format.events(turn)) {
        if (event.data === "[DONE]") continue;
        const payload = JSON.parse(event.data) as Json;
        const kind = kindOf(payload);
        const known = real.get(kind);
        expect(known, `the recordings have a ${kind} event`).toBeDefined();
        const unknown = paths(payload).filter((path) => !known?.has(path));
        expect(unknown, `fields of ${kind} that no recorded ${kind} has`).toEqual([]);
        if (event.event !== undefined) expect(event.event).toBe(payload.type);
      }
    }
  });
});
