import {
  type AnyTool,
  BridleError,
  defineTool,
  type SessionStore,
  sessionTranscript,
  ToolFailure,
} from "@bridle/core";
import { z } from "zod";
import { clip, isoTime, renderMessage } from "./format.js";

const sessionId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,128}$/, "a session id: letters, digits, - or _, at most 128 characters")
  .describe("The session's id, as session_list or session_search shows it");

/** Longest a tool's answer gets, so one call never floods the context. */
const MAX_OUTPUT = 40_000;
const MAX_MESSAGE = 2_000;

/** session_list, session_history and session_search over any SessionStore. */
export function sessionTools(store: SessionStore): AnyTool[] {
  return [sessionList(store), sessionHistory(store), sessionSearch(store)];
}

export function sessionList(store: SessionStore) {
  return defineTool({
    name: "session_list",
    description: "List recorded sessions, most recently updated first: id, last update, event count, title.",
    inputSchema: z.object({
      limit: z.number().int().min(1).max(200).default(20).describe("How many sessions to show (default 20)"),
    }),
    annotations: { read_only: true, idempotent: true },
    execute: async ({ limit }) => {
      const sessions = await store.list({ limit });
      if (sessions.length === 0) return { content: "No sessions recorded yet.", details: { sessions } };
      const lines = sessions.map((s) => {
        const title = s.title ? `  "${clip(s.title, 120)}"` : "";
        const fork = s.parent ? `  (fork of ${s.parent.sessionId} at event ${s.parent.seq})` : "";
        return `${s.id}  updated ${isoTime(s.updatedAt)}  ${s.lastSeq + 1} events${title}${fork}`;
      });
      return { content: lines.join("\n"), details: { sessions } };
    },
  });
}

export function sessionHistory(store: SessionStore) {
  return defineTool({
    name: "session_history",
    description:
      "Show the last messages of a recorded session (user prompts, assistant replies, tool calls and results), oldest first.",
    inputSchema: z.object({
      session_id: sessionId,
      last_n: z
        .number()
        .int()
        .min(1)
        .max(200)
        .default(20)
        .describe("How many of the last messages (default 20)"),
    }),
    annotations: { read_only: true, idempotent: true },
    execute: async ({ session_id, last_n }) => {
      const messages = await sessionTranscript(store, session_id).catch((error: unknown) => {
        if (error instanceof BridleError && error.code === "not_found") {
          throw new ToolFailure("NotFound", `no session "${session_id}"; session_list shows the ids`);
        }
        throw error;
      });
      const first = Math.max(0, messages.length - last_n);
      const rendered = messages.slice(first).map((m, i) => renderMessage(m, first + i + 1, MAX_MESSAGE));
      // Keep the newest messages when the whole answer would be too long.
      let total = 0;
      let keep = rendered.length;
      while (keep > 0 && total + (rendered[keep - 1] as string).length + 1 <= MAX_OUTPUT) {
        total += (rendered[keep - 1] as string).length + 1;
        keep--;
      }
      const shown = rendered.slice(keep);
      const header = `Session ${session_id}: ${messages.length} messages; showing ${shown.length}${
        keep > 0 ? ` (${keep} older ones left out to fit)` : ""
      }.`;
      return {
        content:
          messages.length === 0
            ? `Session ${session_id} has no messages yet.`
            : [header, ...shown].join("\n"),
        details: { sessionId: session_id, total: messages.length, shown: shown.length },
      };
    },
  });
}

export function sessionSearch(store: SessionStore) {
  return defineTool({
    name: "session_search",
    description:
      "Search the text of recorded sessions (prompts, replies, tool calls and outputs). Every word must match the start of a word; results are ranked, best first.",
    inputSchema: z.object({
      query: z.string().trim().min(1).max(500).describe("Words to look for, e.g. 'deploy script staging'"),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(50)
        .default(10)
        .describe("At most this many results (default 10)"),
    }),
    annotations: { read_only: true, idempotent: true },
    execute: async ({ query, max_results }) => {
      const hits = await store.search(query, { limit: max_results });
      if (hits.length === 0) {
        return { content: `No matches for "${clip(query, 200)}".`, details: { hits } };
      }
      const lines = hits.map(
        (hit, i) =>
          `${i + 1}. ${hit.sessionId} event ${hit.sessionSeq} (${hit.eventType}): ${clip(hit.snippet, 400)}`,
      );
      return { content: lines.join("\n"), details: { hits } };
    },
  });
}
