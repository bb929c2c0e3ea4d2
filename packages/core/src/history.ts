import { BridleError } from "./errors.js";
import type { StopReason } from "./events.js";
import { failureText } from "./failure-text.js";
import { type Message, type ToolResultMessage, toolCallsOf } from "./messages.js";
import { failureResult } from "./tool-call.js";

/**
 * History with every tool call answered. A transcript cut short (a crash between a call and its result,
 * a run that paused and was never resumed) would otherwise be refused by providers and block the thread:
 * each unanswered call gets a `Cancelled` result, placed with the other results of its turn. Returns the
 * same array when nothing was missing.
 */
export function closeDanglingCalls(messages: readonly Message[]): readonly Message[] {
  const out: Message[] = [];
  let open: { id: string; name: string }[] = [];
  const closeOpen = () => {
    for (const call of open) out.push(unansweredResult(call.id, call.name));
    open = [];
  };
  let changed = false;
  for (const message of messages) {
    if (message.role === "tool") {
      const index = open.findIndex((call) => call.id === message.toolCallId);
      if (index >= 0) open.splice(index, 1);
      out.push(message);
      continue;
    }
    if (open.length > 0) changed = true;
    closeOpen();
    out.push(message);
    if (message.role === "assistant") open = toolCallsOf(message).map(({ id, name }) => ({ id, name }));
  }
  if (open.length > 0) changed = true;
  closeOpen();
  return changed ? out : messages;
}

function unansweredResult(id: string, name: string): ToolResultMessage {
  return failureResult(
    { type: "tool_call", id, name, arguments: "" },
    "Cancelled",
    failureText("Cancelled", "this call was never answered: the earlier run stopped before it ran"),
  );
}

/**
 * What a new run can continue from: a completed run's result (only its transcript is used). "Continue" is
 * a new turn after a finished run; "resume" is only ever a run that paused for approval.
 */
export interface ContinueSource {
  readonly stopReason: StopReason;
  readonly messages: readonly Message[];
}

/**
 * The history a new turn continues from a previous result. Only a cleanly completed run is a checkpoint:
 * a failed or aborted run is not continued silently (pass its `messages` as `history` to do so on
 * purpose), and a paused one resumes with `Harness.resumeApprovals`.
 */
export function continuedHistory(source: ContinueSource): readonly Message[] {
  if (source.stopReason === "approval_required") {
    throw new BridleError(
      "invalid_continue",
      "this run paused for approval: resume it with resumeApprovals(envelope, decisions)",
    );
  }
  if (source.stopReason !== "completed") {
    throw new BridleError(
      "invalid_continue",
      `only a completed run can be continued (this one stopped with "${source.stopReason}"); pass its messages as history to continue anyway`,
    );
  }
  return source.messages;
}
