import { sharedFixtures } from "../shared-fixtures.js";
import type { SseEvent } from "./sse.js";
import type { FakeWireFormat } from "./turn.js";

/**
 * A recorded stream (one JSON payload per line, as captured from a provider) as the events of one reply
 * per response: Responses recordings that span several requests are split at each `response.created`.
 * Lines are served byte for byte, malformed ones included; Anthropic and Responses events carry their
 * `type` as the event name, and Chat Completions streams end with `[DONE]`.
 */
export function recordedReplies(text: string, format: FakeWireFormat["name"]): SseEvent[][] {
  const replies: SseEvent[][] = [];
  let current: SseEvent[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const type = /^\{"type":"([^"]+)"/.exec(line)?.[1];
    if (format === "openai-responses" && type === "response.created" && current.length > 0) {
      replies.push(current);
      current = [];
    }
    current.push(
      format === "openai-chat" || type === undefined ? { data: line } : { event: type, data: line },
    );
  }
  if (current.length > 0) replies.push(current);
  if (format === "openai-chat") for (const reply of replies) reply.push({ data: "[DONE]" });
  return replies;
}

/**
 * The folder of recorded provider streams: the shared fixtures' `provider-streams` (`sharedFixtures`:
 * BRIDLE_SHARED_FIXTURES, else `shared/fixtures` beside the checkout). Undefined when absent.
 */
export function recordedStreamsDir(from = process.cwd()): string | undefined {
  return sharedFixtures("provider-streams", from).dir;
}
