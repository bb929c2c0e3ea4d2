import { failureText } from "./failure-text.js";
import type { ToolCallPart, ToolResultMessage } from "./messages.js";
import { failureResult } from "./tool-call.js";

/**
 * The answer to a call from a turn that stopped at max_tokens. Its arguments may parse and still be cut
 * short (a file's content ending mid-way), so the call never runs; the model is told why and how to
 * fit the next attempt into its output budget. InvalidInput, so it counts against the tool's retry budget.
 */
export function truncatedCallResult(call: ToolCallPart): ToolResultMessage {
  return failureResult(
    call,
    "InvalidInput",
    failureText(
      "InvalidInput",
      `the call to "${call.name.slice(0, 100)}" was truncated: the response reached its output token limit (max_tokens) before the call was complete, so it was not run. Call again with smaller arguments: split a large write or edit into several smaller calls, or write less per call.`,
    ),
  );
}
