import { errorMessage } from "./errors.js";
import { type Message, textOf, toolCallsOf, type UserMessage, userText } from "./messages.js";
import type { Model, ModelError, ModelOptions } from "./model.js";
import type { TokenEstimator } from "./token-estimate.js";
import { emptyUsage, type Usage } from "./usage.js";

/** The first line of every summary message, so people and models can tell it from a real prompt. */
export const SUMMARY_PREFIX =
  "[Summary of the earlier conversation, written when the context window filled up]";

export const DEFAULT_SUMMARY_INSTRUCTIONS = `You compact the history of a coding agent's session so the agent can continue its work with less context.
Write a summary the agent will read instead of the messages it replaces. Keep:
- the user's goals, requests and constraints, in their own words where they matter;
- decisions made and why; what was tried and failed;
- files read or changed (paths) and the important facts found in them;
- commands run and their notable results; open problems; the next steps planned.
Leave out pleasantries and anything superseded. Write plain text, at most about a page, and do not call tools.`;

/**
 * Where the transcript can be cut: the smallest index whose tail fits `keepTokens`, among the indices that
 * split no tool call from its result. A cut never lands on a tool result (its call would be summarized
 * away) nor after a call that still waits for its result (the call must stay beside it). Returns undefined
 * when nothing before the tail can be summarized.
 */
export function findCutPoint(
  messages: readonly Message[],
  keepTokens: number,
  estimate: TokenEstimator,
): number | undefined {
  const candidates: number[] = [];
  const open = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === "tool") {
      open.delete(message.toolCallId);
      continue;
    }
    if (i > 0 && open.size === 0) candidates.push(i);
    // A turn whose calls are not all answered by the next non-tool message stays open: never cut after it.
    if (message.role === "assistant") for (const call of toolCallsOf(message)) open.add(call.id);
  }
  // Calls still open at the end wait for results: the cut must come before the turn that made them.
  if (open.size > 0) {
    let lastOpenTurn = messages.length;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as Message;
      if (message.role === "assistant" && toolCallsOf(message).some((call) => open.has(call.id))) {
        lastOpenTurn = i;
        break;
      }
    }
    while (candidates.length > 0 && (candidates.at(-1) as number) > lastOpenTurn) candidates.pop();
  }
  if (candidates.length === 0) return undefined;
  // Walk from the end, growing the kept tail until the next candidate would pass the budget.
  let tail = 0;
  let end = messages.length;
  let chosen: number | undefined;
  for (let c = candidates.length - 1; c >= 0; c--) {
    const cut = candidates[c] as number;
    for (let i = cut; i < end; i++) tail += estimate(messages[i] as Message);
    end = cut;
    if (tail > keepTokens) break;
    chosen = cut;
  }
  // Even the last turn alone passes the budget: keep just that turn rather than nothing.
  return chosen ?? (candidates.at(-1) as number);
}

/** Whether cutting at `cut` would replace anything but an earlier summary alone. */
export function worthCompacting(messages: readonly Message[], cut: number): boolean {
  if (cut < 1) return false;
  return !(cut === 1 && isSummary(messages[0]));
}

export function isSummary(message: Message | undefined): boolean {
  return message?.role === "user" && textOf(message.content).startsWith(SUMMARY_PREFIX);
}

export function summaryMessage(summary: string): UserMessage {
  return userText(`${SUMMARY_PREFIX}\n\n${summary.trim()}`);
}

/**
 * The messages to summarize as one plain-text document. Sending them as text, not as a conversation,
 * means the summarizer request needs no tool definitions, has no call/result pairing to satisfy, and can
 * be bounded: each tool result and argument is cut to `perItemChars`, the whole to `maxChars` (head and
 * tail kept).
 */
export function renderForSummary(
  messages: readonly Message[],
  options: { readonly maxChars: number; readonly perItemChars: number },
): string {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        lines.push(`## system\n${clip(message.content, options.perItemChars)}`);
        break;
      case "user":
        lines.push(`## user\n${clip(partsText(message.content), options.perItemChars * 2)}`);
        break;
      case "assistant": {
        const text = message.content
          .map((part) => {
            if (part.type === "text") return part.text;
            if (part.type === "reasoning") return part.text ? `(thinking) ${part.text}` : "";
            return `(tool call ${part.name} ${part.id}) ${clip(part.arguments, options.perItemChars)}`;
          })
          .filter((line) => line !== "")
          .join("\n");
        lines.push(`## assistant\n${clip(text, options.perItemChars * 2)}`);
        break;
      }
      case "tool":
        lines.push(
          `## tool result ${message.toolName} ${message.toolCallId}${message.isError ? " (error)" : ""}\n${clip(partsText(message.content), options.perItemChars)}`,
        );
        break;
    }
  }
  return clip(lines.join("\n\n"), options.maxChars);
}

function partsText(parts: readonly { readonly type: string; readonly text?: string }[]): string {
  return parts.map((part) => (part.type === "text" ? (part.text ?? "") : `(${part.type})`)).join("\n");
}

/** Head and tail of `text` within `max` characters, with a marker saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.6);
  const tail = Math.max(0, max - head);
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${omitted} characters omitted …]\n${text.slice(text.length - tail)}`;
}

export interface SummaryRequest {
  readonly model: Model;
  readonly messages: readonly Message[];
  readonly instructions: string;
  readonly maxChars: number;
  readonly maxOutputTokens: number;
  readonly signal: AbortSignal;
  readonly modelOptions?: ModelOptions;
}

export type SummaryOutcome =
  | { readonly ok: true; readonly summary: string; readonly usage: Usage }
  | { readonly ok: false; readonly error: ModelError; readonly usage: Usage };

/** Asks the model for a summary of `messages`. Never throws: failures come back as a ModelError. */
export async function summarize(request: SummaryRequest): Promise<SummaryOutcome> {
  const document = renderForSummary(request.messages, {
    maxChars: request.maxChars,
    perItemChars: Math.max(500, Math.floor(request.maxChars / 20)),
  });
  const prompt = `Summarize this conversation history for the agent that will continue it.\n\n<history>\n${document}\n</history>`;
  let usage: Usage = emptyUsage;
  try {
    const events = request.model.stream({
      system: request.instructions,
      messages: [userText(prompt)],
      tools: [],
      options: { ...request.modelOptions, maxOutputTokens: request.maxOutputTokens, toolChoice: "none" },
      signal: request.signal,
    });
    for await (const event of events) {
      if (event.type === "error") {
        return { ok: false, error: event.error, usage: event.usage ?? usage };
      }
      if (event.type === "done") {
        usage = event.usage;
        const summary = textOf(event.message.content).trim();
        if (summary === "") {
          return {
            ok: false,
            error: { code: "bad_response", message: "the summary came back empty", retryable: false },
            usage,
          };
        }
        return { ok: true, summary, usage };
      }
    }
    return {
      ok: false,
      error: { code: "bad_response", message: "the summary stream ended without a turn", retryable: false },
      usage,
    };
  } catch (error) {
    return {
      ok: false,
      error: {
        code: request.signal.aborted ? "aborted" : "unknown",
        message: `the model adapter threw while summarizing: ${errorMessage(error)}`,
        retryable: false,
      },
      usage,
    };
  }
}

/** What a provider's context-overflow message says: the input limit and the tokens the request had. */
export interface StatedContext {
  readonly limit?: number;
  readonly requested?: number;
}

const count = (text: string | undefined) => (text === undefined ? undefined : Number(text.replace(/,/g, "")));
const N = String.raw`(\d[\d,]*)`;

/**
 * The limit and size a context-overflow message states, in the wordings of OpenAI ("maximum context
 * length is 8192 tokens. However, your messages resulted in 9000 tokens"), Anthropic ("prompt is too
 * long: 210000 tokens > 200000 maximum"; "input length and `max_tokens` exceed context limit: 190000 +
 * 21333 > 200000") and llama.cpp's server ("request (9000 tokens) exceeds the available context size
 * (8192 tokens)"). Anthropic's input-plus-output form leaves the output's share out of the limit.
 */
export function statedContextLimit(message: string): StatedContext {
  const sum = new RegExp(`${N}\\s*\\+\\s*${N}\\s*>\\s*${N}`).exec(message);
  if (sum && /context limit|max_tokens/i.test(message)) {
    const [input, output, limit] = [count(sum[1]), count(sum[2]), count(sum[3])] as [number, number, number];
    return { limit: limit - output, requested: input };
  }
  const anthropic = new RegExp(`too long:\\s*${N} tokens\\s*>\\s*${N}`, "i").exec(message);
  if (anthropic) return { limit: count(anthropic[2]), requested: count(anthropic[1]) };
  const limit = new RegExp(
    `(?:maximum context length is|context (?:window|length|limit|size) (?:is |of )?\\(?)${N} tokens`,
    "i",
  ).exec(message);
  const requested = new RegExp(
    `(?:(?:resulted in|requested|prompt has|input has) |request \\()${N} tokens`,
    "i",
  ).exec(message);
  return {
    ...(limit ? { limit: count(limit[1]) } : {}),
    ...(requested ? { requested: count(requested[1]) } : {}),
  };
}
