import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  type AssistantMessage,
  type Message,
  type RunEvent,
  type ToolResultMessage,
  textOf,
  type UserContent,
} from "@bridle/core";

type Entry = Record<string, unknown>;

/**
 * Each session's transcript in Claude Code's JSONL shape, the file `transcript_path` names: a line per
 * message, `type` "user" (prompts, and tool results as `tool_result` blocks) or "assistant" (`text`,
 * `thinking` and `tool_use` blocks), chained by `uuid`/`parentUuid`, and a `compact_boundary` system line
 * before a compaction's summary. Lines are appended as the run's events arrive, synchronously, so a hook
 * that reads the file sees every message up to its own event. A session's file starts at the first run
 * these hooks saw: history from before is not rewritten into it.
 */
export class ClaudeTranscripts {
  readonly #dir: string;
  readonly #cwd: string;
  /** The last entry's uuid by session: the next entry's parent. */
  readonly #last = new Map<string, string>();
  /** The model of each run, from its run_started. */
  readonly #models = new Map<string, string>();

  constructor(dir: string, cwd: string) {
    this.#dir = dir;
    this.#cwd = cwd;
  }

  /** The session's file, created empty if it does not exist yet (a script may read it at once). */
  pathFor(sessionId: string): string {
    const path = join(this.#dir, `${sessionId.replace(/[^\w.-]/g, "_")}.jsonl`);
    mkdirSync(this.#dir, { recursive: true });
    appendFileSync(path, "");
    return path;
  }

  write(event: RunEvent): void {
    const entries = this.#entries(event);
    if (entries.length === 0) return;
    const session = event.sessionId ?? event.runId;
    let parent = this.#last.get(session) ?? null;
    const lines = entries.map((entry) => {
      const uuid = randomUUID();
      const line = {
        parentUuid: parent,
        isSidechain: event.parentRunId !== undefined,
        userType: "external",
        cwd: this.#cwd,
        sessionId: session,
        version: "bridle",
        ...entry,
        uuid,
        timestamp: new Date(event.time).toISOString(),
      };
      parent = uuid;
      return `${JSON.stringify(line)}\n`;
    });
    if (parent) this.#last.set(session, parent);
    appendFileSync(this.pathFor(session), lines.join(""));
  }

  #entries(event: RunEvent): Entry[] {
    switch (event.type) {
      case "run_started":
        this.#models.set(event.runId, event.model);
        return event.messages.flatMap((message) => messageEntry(message));
      case "user_message_delivered":
        return messageEntry(event.message);
      case "model_response":
        return [assistantEntry(event.message, event, this.#models.get(event.runId))];
      case "tool_call_completed":
        return [toolResultEntry(event.result)];
      case "compaction": {
        const summary =
          event.summary.role === "system" ? event.summary.content : textOf(event.summary.content);
        return [
          {
            type: "system",
            subtype: "compact_boundary",
            content: "Conversation compacted",
            compactMetadata: {
              trigger: event.reason === undefined ? "manual" : "auto",
              ...(event.tokensBefore === undefined ? {} : { preTokens: event.tokensBefore }),
            },
          },
          { type: "user", isCompactSummary: true, message: { role: "user", content: summary } },
        ];
      }
      default:
        return [];
    }
  }
}

function messageEntry(message: Message): Entry[] {
  if (message.role === "user") {
    return [{ type: "user", message: { role: "user", content: userContent(message.content) } }];
  }
  if (message.role === "tool") return [toolResultEntry(message)];
  return [];
}

/** Plain text as a string, as Claude Code writes a typed prompt; anything else as content blocks. */
function userContent(content: readonly UserContent[]): unknown {
  if (content.length === 1 && content[0]?.type === "text") return content[0].text;
  return content.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : {
          type: "image",
          source: part.data
            ? { type: "base64", media_type: part.mediaType, data: part.data }
            : { type: "url", url: part.url ?? "" },
        },
  );
}

function assistantEntry(
  message: AssistantMessage,
  event: Extract<RunEvent, { type: "model_response" }>,
  model: string | undefined,
): Entry {
  const content = message.content.flatMap((part): Entry[] => {
    if (part.type === "text") return [{ type: "text", text: part.text }];
    if (part.type === "reasoning") return part.text ? [{ type: "thinking", thinking: part.text }] : [];
    return [{ type: "tool_use", id: part.id, name: part.name, input: parsedInput(part.arguments) }];
  });
  return {
    type: "assistant",
    message: {
      id: `msg_${event.runId}_${event.request}`,
      type: "message",
      role: "assistant",
      ...(model ? { model } : {}),
      content,
      stop_reason: event.stopReason,
      usage: {
        input_tokens: event.usage.inputTokens,
        output_tokens: event.usage.outputTokens,
        cache_read_input_tokens: event.usage.cacheReadTokens,
        cache_creation_input_tokens: event.usage.cacheWriteTokens,
      },
    },
  };
}

function toolResultEntry(result: ToolResultMessage): Entry {
  const text = textOf(result.content);
  return {
    type: "user",
    message: {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: result.toolCallId, content: text, is_error: result.isError },
      ],
    },
    toolUseResult: result.details ?? text,
  };
}

/** The call's arguments as an object, as Claude Code's `tool_use.input`; raw text that is not JSON stays text. */
function parsedInput(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
