import { type AnyTool, defineTool } from "@bridle/core";
import { z } from "zod";
import { clip, isoTime } from "./format.js";
import type { MemoryStore } from "./memory-store.js";

const key = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "a key of 1-64 letters, digits, - or _")
  .describe("The note's key: 1-64 letters, digits, - or _ (e.g. 'project-conventions')");

/** The largest note write_memory accepts. */
export const MAX_MEMORY_CHARS = 100_000;

/** read_memory, write_memory and memory_search over a MemoryStore. */
export function memoryTools(memory: MemoryStore): AnyTool[] {
  return [readMemory(memory), writeMemory(memory), memorySearch(memory)];
}

/** What read_memory reports to interfaces: the seed's `{content, exists}` plus the key and last update. */
export interface ReadMemoryDetails {
  readonly key: string;
  readonly exists: boolean;
  readonly content: string;
  readonly updatedAt?: number;
}

export function readMemory(memory: MemoryStore) {
  return defineTool({
    name: "read_memory",
    description:
      "Read a note saved with write_memory in this or an earlier session. A missing key is not an error: it reports that nothing is stored.",
    inputSchema: z.object({ key }),
    annotations: { read_only: true, idempotent: true },
    execute: async ({ key }): Promise<{ content: string; details: ReadMemoryDetails }> => {
      const entry = await memory.read(key);
      if (!entry) {
        return {
          content: `No memory stored under "${key}".`,
          details: { key, exists: false, content: "" },
        };
      }
      return {
        content: entry.content,
        details: { key, exists: true, content: entry.content, updatedAt: entry.updatedAt },
      };
    },
  });
}

export function writeMemory(memory: MemoryStore) {
  return defineTool({
    name: "write_memory",
    description:
      "Save a markdown note under a key so later sessions can read it (facts about the project, conventions, solutions, user preferences). Replaces any note under the same key.",
    inputSchema: z.object({
      key,
      content: z
        .string()
        .max(MAX_MEMORY_CHARS)
        .describe(`The whole note, markdown, at most ${MAX_MEMORY_CHARS} characters`),
    }),
    annotations: { destructive: true, idempotent: true },
    sequential: true,
    execute: async ({ key, content }) => {
      const { created } = await memory.write(key, content);
      return {
        content: `${created ? "Saved" : "Replaced"} memory "${key}" (${content.length} characters).`,
        details: { key, created, chars: content.length },
      };
    },
  });
}

export function memorySearch(memory: MemoryStore) {
  return defineTool({
    name: "memory_search",
    description:
      "Search saved memory notes by words (each must match the start of a word in the note or its key); ranked, best first.",
    inputSchema: z.object({
      query: z.string().trim().min(1).max(500).describe("Words to look for"),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(30)
        .default(10)
        .describe("At most this many notes (default 10)"),
    }),
    annotations: { read_only: true, idempotent: true },
    execute: async ({ query, max_results }) => {
      const hits = await memory.search(query, max_results);
      if (hits.length === 0) {
        const keys = (await memory.list())
          .slice(0, 20)
          .map((entry) => `${entry.key} (${isoTime(entry.updatedAt)})`);
        const known = keys.length > 0 ? ` Stored keys: ${keys.join(", ")}.` : " No notes are stored yet.";
        return { content: `No memory matches "${clip(query, 200)}".${known}`, details: { hits } };
      }
      const lines = hits.map(
        (hit, i) => `${i + 1}. ${hit.key} (line ${hit.line}): ${clip(hit.snippet, 400)}`,
      );
      return { content: lines.join("\n"), details: { hits } };
    },
  });
}
