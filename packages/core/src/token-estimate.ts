import type { Message } from "./messages.js";

/**
 * Rough token counts, for deciding when to compact: about four characters a token for text and JSON,
 * a fixed cost for images and for each message's framing. Providers count exactly only after the fact
 * (in `usage`), and a compaction decision must be made before the request is sent.
 */
export type TokenEstimator = (message: Message) => number;

export const CHARS_PER_TOKEN = 4;
/** Per message: role markers and separators every provider adds. */
const MESSAGE_OVERHEAD = 4;
/** An image costs a roughly constant amount whatever its bytes (providers resize them). */
const IMAGE_TOKENS = 1_600;

// Messages are immutable records shared by the transcript, events and results: one estimate each.
const cache = new WeakMap<Message, number>();

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The estimated tokens of one message (cached per message object). */
export const estimateTokens: TokenEstimator = (message) => {
  const known = cache.get(message);
  if (known !== undefined) return known;
  let chars = 0;
  let images = 0;
  if (message.role === "system") {
    chars = message.content.length;
  } else if (message.role === "tool") {
    chars = message.toolName.length + message.toolCallId.length;
    for (const part of message.content) {
      if (part.type === "text") chars += part.text.length;
      else images++;
    }
  } else if (message.role === "user") {
    for (const part of message.content) {
      if (part.type === "text") chars += part.text.length;
      else images++;
    }
  } else {
    for (const part of message.content) {
      if (part.type === "text") chars += part.text.length;
      else if (part.type === "reasoning") {
        chars += part.text.length;
        // An opaque replay blob (encrypted reasoning) is sent back to its provider and counts there.
        if (typeof part.blob === "string") chars += part.blob.length;
      } else chars += part.name.length + part.arguments.length + part.id.length;
    }
  }
  const tokens = MESSAGE_OVERHEAD + Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
  cache.set(message, tokens);
  return tokens;
};

/** The estimated tokens of a list of messages. */
export function estimateMessagesTokens(
  messages: readonly Message[],
  estimate: TokenEstimator = estimateTokens,
): number {
  let total = 0;
  for (const message of messages) total += estimate(message);
  return total;
}
