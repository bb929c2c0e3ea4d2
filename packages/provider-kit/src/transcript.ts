import type { AssistantContent, Message, ReasoningPart } from "@bridle/core";

/** Whether `part` can be replayed to `provider` as native reasoning (its own, with its replay token). */
export function isNativeReasoning(part: ReasoningPart, provider: string): boolean {
  return part.provider === provider && part.blob !== undefined;
}

/**
 * The conversation as another provider can take it: reasoning that `provider` cannot replay natively
 * becomes a `<thinking>`-tagged text at its place (its opaque token dropped), and reasoning with no
 * readable text is left out. Messages with nothing to convert are returned as they are.
 */
export function degradeForeignReasoning(messages: readonly Message[], provider: string): readonly Message[] {
  return messages.map((message) => {
    if (message.role !== "assistant") return message;
    if (!message.content.some((part) => part.type === "reasoning" && !isNativeReasoning(part, provider))) {
      return message;
    }
    const content: AssistantContent[] = [];
    for (const part of message.content) {
      if (part.type !== "reasoning" || isNativeReasoning(part, provider)) content.push(part);
      else if (part.text.trim())
        content.push({ type: "text", text: `<thinking>\n${part.text}\n</thinking>` });
    }
    return { ...message, content };
  });
}

/** A tool call's arguments as a JSON object, for APIs that take parsed input; `{}` when they are not one. */
export function argumentsObject(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // The harness already answered such a call with an InvalidInput result the model can read.
  }
  return {};
}

/** An image part as a data URL, or its URL. */
export function imageUrl(part: {
  readonly mediaType: string;
  readonly data?: string;
  readonly url?: string;
}): string {
  if (part.url) return part.url;
  return `data:${part.mediaType};base64,${part.data ?? ""}`;
}
