import { randomUUID } from "node:crypto";
import { type CompactionEvent, type Message, textOf, userText } from "@bridle/core";
import type { Agent } from "./compose.js";

const INSTRUCTION =
  "Summarize the conversation above for your own later use: the task, what was done (files read and changed, commands run and their outcome), decisions made, and what remains. Be specific (paths, names, numbers) and brief.";

/**
 * /compact: the model summarizes everything before the latest user prompt; the summary replaces those
 * messages. A `compaction` event is recorded in the session, so a resume or a fork sees the same
 * transcript. The cut is always at a user prompt, so no tool call is separated from its result.
 */
export async function compactSession(
  agent: Agent,
  sessionId: string,
  history: readonly Message[],
): Promise<{ history: readonly Message[]; message: string }> {
  let cut = -1;
  for (let i = history.length - 1; i > 0; i--) {
    if (history[i]?.role === "user") {
      cut = i;
      break;
    }
  }
  if (cut <= 1) return { history, message: "nothing to compact yet" };
  let summary = "";
  let failure: string | undefined;
  for await (const event of agent.model.stream({
    messages: [...history.slice(0, cut), userText(INSTRUCTION)],
    tools: [],
    signal: AbortSignal.timeout(120_000),
  })) {
    if (event.type === "done") summary = textOf(event.message.content);
    if (event.type === "error") failure = event.error.message;
  }
  if (failure !== undefined || !summary.trim()) {
    return { history, message: `compaction failed: ${failure ?? "the model returned no summary"}` };
  }
  const summaryMessage = userText(`[Summary of the earlier conversation]\n${summary}`);
  const event: CompactionEvent = {
    type: "compaction",
    runId: `compact-${randomUUID()}`,
    seq: 0,
    time: Date.now(),
    sessionId,
    replacedCount: cut,
    summary: summaryMessage,
  };
  await agent.store.append(sessionId, [event]);
  return {
    history: [summaryMessage, ...history.slice(cut)],
    message: `compacted ${cut} messages into a summary of ${summary.length} characters`,
  };
}
