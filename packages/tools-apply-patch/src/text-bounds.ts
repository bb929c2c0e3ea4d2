/** Longest stretch of a line quoted back to the model in a message. */
export const MAX_QUOTED_CHARS = 160;
/** Longest message the model gets for one failure. */
export const MAX_MESSAGE_CHARS = 4_000;

export function clip(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

export function clipMessage(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}\n… (message cut)` : text;
}
