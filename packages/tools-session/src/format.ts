import type { Message } from "@bridle/core";

/** Cuts `text` to `max` characters, saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** One transcript message as a few readable lines for the model. */
export function renderMessage(message: Message, index: number, maxChars: number): string {
  const head = `[${index}] ${message.role}`;
  if (message.role === "system") return `${head}: ${clip(message.content, maxChars)}`;
  if (message.role === "tool") {
    const text = message.content.map((part) =>
      part.type === "text" ? part.text : `[image ${part.mediaType}]`,
    );
    const status = message.isError ? ` (${message.errorKind ?? "error"})` : "";
    return `${head} ${message.toolName}${status}: ${clip(text.join("\n"), maxChars)}`;
  }
  const parts: string[] = [];
  for (const part of message.content) {
    if (part.type === "text") parts.push(part.text);
    else if (part.type === "image") parts.push(`[image ${part.mediaType}]`);
    else if (part.type === "tool_call") parts.push(`→ ${part.name}(${part.arguments})`);
  }
  return `${head}: ${clip(parts.join("\n"), maxChars)}`;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
