// A stored conversation as text for a person: `bridle sessions show` prints all of it, a resumed session
// the end of it. What the store holds came from models and tools: every line is escaped.
import { type Message, textOf } from "@bridle/core";
import { oneLine, visible } from "./display-text.js";

/** The conversation's lines (system messages left out), each message's text whole. */
export function transcriptText(messages: readonly Message[], maxText = Number.POSITIVE_INFINITY): string {
  let out = "";
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "tool") {
      out += `tool ${oneLine(message.toolName, 80)}${message.isError ? " (error)" : ""}: ${oneLine(textOf(message.content), 160)}\n`;
      continue;
    }
    const text = textOf(message.content);
    if (text) out += `${message.role}: ${visible(bounded(text, maxText))}\n`;
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool_call")
          out += `  → ${oneLine(part.name, 80)} ${oneLine(part.arguments, 160)}\n`;
      }
    }
  }
  return out;
}

/** Messages of a resumed session shown before its prompt; each text cut to this many characters. */
const RECAP_MESSAGES = 12;
const RECAP_TEXT = 600;

/** The end of a resumed session's conversation, bounded: where the person left off. */
export function resumeRecap(messages: readonly Message[]): string {
  const shown = messages.filter((message) => message.role !== "system");
  if (shown.length === 0) return "";
  const recent = shown.slice(-RECAP_MESSAGES);
  const earlier = shown.length - recent.length;
  return `── the session so far${earlier > 0 ? ` (${earlier} earlier message${earlier === 1 ? "" : "s"} not shown)` : ""}\n${transcriptText(recent, RECAP_TEXT)}──\n`;
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
