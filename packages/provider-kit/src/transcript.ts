import type { AssistantContent, Message, ReasoningPart } from "@bridle/core";

/** Whether `part` can be replayed to `provider` as native reasoning (its own, with its replay token). */
export function isNativeReasoning(part: ReasoningPart, provider: string): boolean {
  return part.provider === provider && part.blob !== undefined;
}

/**
 * The conversation as `provider` (running `model`) can take it: reasoning it cannot replay natively
 * becomes a `<thinking>`-tagged text at its place (its opaque token dropped), and reasoning with no
 * readable text is left out. Reasoning is native when the same provider produced it with a replay token
 * and, when both are known, the same model: replay tokens are not portable across models.
 */
export function degradeForeignReasoning(
  messages: readonly Message[],
  provider: string,
  model?: string,
): readonly Message[] {
  return messages.map((message) => {
    if (message.role !== "assistant") return message;
    const otherModel = model !== undefined && message.model !== undefined && message.model !== model;
    const native = (part: ReasoningPart) => !otherModel && isNativeReasoning(part, provider);
    if (!message.content.some((part) => part.type === "reasoning" && !native(part))) return message;
    const content: AssistantContent[] = [];
    for (const part of message.content) {
      if (part.type !== "reasoning" || native(part)) content.push(part);
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
