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
 * user prompt, so no tool call is separated from its result. `instructions` (what followed /compact) tell
 * the summary what to keep; the before_compaction hooks run first and may refuse.
 */
export async function compactSession(
  agent: Agent,
  sessionId: string,
  history: readonly Message[],
  contextWindow?: number,
  instructions = "",
): Promise<{ history: readonly Message[]; message: string }> {
  let cut = -1;
  for (let i = history.length - 1; i > 0; i--) {
    if (history[i]?.role === "user") {
      cut = i;
      break;
    }
  }
  if (cut <= 1) return { history, message: "nothing to compact yet" };
  // The before_compaction hooks (a PreCompact script) may save what they need first, or refuse.
  const failures: string[] = [];
  const verdict = await agent.harness.beforeCompaction({
    sessionId,
    instructions,
    onHookFailed: (failure) => void failures.push(`${failure.hookName ?? failure.hook}: ${failure.message}`),
  });
  const failed = failures.length > 0 ? ` (a hook failed: ${failures.join("; ")})` : "";
  if (verdict.blocked)
    return { history, message: `compaction blocked by a hook: ${verdict.reason}${failed}` };
  const fixed =
    estimateTextTokens(agent.kit.system ?? "") +
    estimateTextTokens(JSON.stringify(agent.harness.toolSchemas));
  const before = estimateMessagesTokens(history) + fixed;
  const window = contextWindowOf(agent.model, contextWindow).tokens;
  const outcome = await summarize({
    model: agent.model,
    messages: history.slice(0, cut),
    instructions:
      instructions === ""
        ? DEFAULT_SUMMARY_INSTRUCTIONS
        : `${DEFAULT_SUMMARY_INSTRUCTIONS}\n\nThe user asked this summary to: ${instructions}`,
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
  // The observers (a PostCompact script) see it as they see a run's compaction.
  for (const observer of agent.observers) observer.write(event);
  const tokensAfter = estimateMessagesTokens(compacted) + fixed;
  return { history: compacted, message: `${compactionLine({ ...event, tokensAfter })}${failed}` };
}
