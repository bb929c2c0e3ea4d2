import { randomUUID } from "node:crypto";
import { contextWindowOf } from "@bridle/coding-agent";
import {
  type CompactionEvent,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  estimateMessagesTokens,
  estimateTextTokens,
  type Message,
  summarize,
  summaryMessage,
} from "@bridle/core";
import { compactionLine } from "../terminal/run-view.js";
import type { Agent } from "./agent.js";

/**
 * /compact: the model summarizes everything before the latest user prompt (sent as a bounded text
 * document, as the harness's own compaction does); the summary replaces those messages. A `compaction`
 * event is recorded in the session, so a resume or a fork sees the same transcript. The cut is always at a
 * user prompt, so no tool call is separated from its result.
 */
export async function compactSession(
  agent: Agent,
  sessionId: string,
  history: readonly Message[],
  contextWindow?: number,
): Promise<{ history: readonly Message[]; message: string }> {
  let cut = -1;
  for (let i = history.length - 1; i > 0; i--) {
    if (history[i]?.role === "user") {
      cut = i;
      break;
    }
  }
  if (cut <= 1) return { history, message: "nothing to compact yet" };
  const fixed =
    estimateTextTokens(agent.kit.system ?? "") +
    estimateTextTokens(JSON.stringify(agent.harness.toolSchemas));
  const before = estimateMessagesTokens(history) + fixed;
  const window = contextWindowOf(agent.model, contextWindow).tokens;
  const outcome = await summarize({
    model: agent.model,
    messages: history.slice(0, cut),
    instructions: DEFAULT_SUMMARY_INSTRUCTIONS,
    maxChars: Math.max(8_000, Math.floor(window * 0.6 * 4)),
    maxOutputTokens: 4_096,
    signal: AbortSignal.timeout(120_000),
  });
  if (!outcome.ok) return { history, message: `compaction failed: ${outcome.error.message}` };
  const summary = summaryMessage(outcome.summary);
  const compacted = [summary, ...history.slice(cut)];
  const event: CompactionEvent = {
    type: "compaction",
    runId: `compact-${randomUUID()}`,
    seq: 0,
    time: Date.now(),
    sessionId,
    replacedCount: cut,
    summary,
    tokensBefore: before,
    usage: outcome.usage,
  };
  await agent.store.append(sessionId, [event]);
  const tokensAfter = estimateMessagesTokens(compacted) + fixed;
  return { history: compacted, message: compactionLine({ ...event, tokensAfter }) };
}
