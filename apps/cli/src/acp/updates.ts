// A run's events as ACP session updates: message and thought chunks, tool calls and their outcome, the
// plan, usage. The same translation replays a stored session (session/load), so a loaded session looks
// as the live one did; its diffs are the changed lines the edit results stored (diffs.ts).
import type { PlanEntry, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { PlanFact } from "@bridle/coding";
import type { RunEvent, ToolCallPart, ToolResultMessage, Usage } from "@bridle/core";
import { storedDiffs } from "./diffs.js";
import { parsedArguments, toolKind, toolLocations, toolPaths, toolTitle } from "./tool-view.js";

/** What a tool result shows in the editor: its text, bounded (the model saw it all). */
const MAX_RESULT_CHARS = 8_000;

export function toolCallStarted(call: ToolCallPart, cwd: string): SessionUpdate {
  const args = parsedArguments(call.arguments);
  const paths = toolPaths(call.name, args, cwd);
  return {
    sessionUpdate: "tool_call",
    toolCallId: call.id,
    title: toolTitle(call.name, args, paths),
    kind: toolKind(call.name),
    status: "pending",
    locations: toolLocations(paths),
    rawInput: args,
  };
}

export function toolCallEnded(
  result: ToolResultMessage,
  diffs: readonly ToolCallContent[] = [],
): SessionUpdate {
  let text = "";
  for (const part of result.content) if (part.type === "text") text += part.text;
  if (text.length > MAX_RESULT_CHARS) text = `${text.slice(0, MAX_RESULT_CHARS)}\n… (cut for display)`;
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: result.toolCallId,
    status: result.isError ? "failed" : "completed",
    content: [
      ...diffs,
      ...(text ? [{ type: "content" as const, content: { type: "text" as const, text } }] : []),
    ],
  };
}

export function planUpdate(plan: PlanFact): SessionUpdate {
  const entries: PlanEntry[] = plan.items.map((item) => ({
    content: item.step,
    priority: "medium",
    status: item.status,
  }));
  return { sessionUpdate: "plan", entries };
}

export function isPlanFact(event: RunEvent): event is RunEvent & { type: "fact"; data: PlanFact } {
  return event.type === "fact" && event.kind === "coding.plan";
}

/** Tokens the conversation holds after one model request: what the context window is filling with. */
export function contextTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}

/**
 * A stored session's events as the updates a client would have seen: the prompts, the model's words and
 * thoughts, each tool call with its outcome, and the plans. Deltas are not stored; whole turns are.
 */
export function replayUpdates(event: RunEvent, cwd: string): SessionUpdate[] {
  switch (event.type) {
    case "run_started":
      return event.messages.flatMap((message) =>
        message.role === "user"
          ? message.content.flatMap((part) =>
              part.type === "text"
                ? [
                    {
                      sessionUpdate: "user_message_chunk" as const,
                      content: { type: "text" as const, text: part.text },
                    },
                  ]
                : [],
            )
          : [],
      );
    case "model_response":
      return event.message.content.flatMap((part): SessionUpdate[] => {
        if (part.type === "text")
          return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } }];
        if (part.type === "reasoning" && part.text)
          return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.text } }];
        return [];
      });
    case "tool_call_requested":
      return [toolCallStarted(event.toolCall, cwd)];
    case "tool_call_completed":
      return [toolCallEnded(event.result, storedDiffs(event.result, cwd))];
    case "fact":
      return isPlanFact(event) ? [planUpdate(event.data)] : [];
    default:
      return [];
  }
}
