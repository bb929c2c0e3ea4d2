import type { ToolFailureKind } from "./messages.js";

const PREVIEW_CHARS = 40;
const MAX_FIELDS = 20;
const MAX_PROBLEMS = 10;
const MAX_MESSAGE_CHARS = 2_000;

/** A short summary of one received value: its type, its length, and a bounded preview. */
export function summarizeValue(value: unknown): string {
  if (typeof value === "string") return `string, ${value.length} chars: ${JSON.stringify(preview(value))}`;
  if (Array.isArray(value)) return `array, ${value.length} items`;
  if (value === null) return "null";
  if (typeof value === "object") return `object, ${Object.keys(value).length} fields`;
  return `${typeof value}: ${preview(String(value))}`;
}

function preview(text: string): string {
  return text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}…`;
}

/**
 * The model-visible text for arguments that failed validation: the tool, the problems, the field names
 * received and a short summary of each. Never the whole of a large field, whatever the model sent.
 */
export function invalidInputText(toolName: string, problems: readonly string[], received: unknown): string {
  const lines = [`InvalidInput: the arguments for tool "${toolName}" were rejected.`, "Problems:"];
  for (const problem of problems.slice(0, MAX_PROBLEMS)) lines.push(`- ${bound(problem, 200)}`);
  if (problems.length > MAX_PROBLEMS) lines.push(`- …and ${problems.length - MAX_PROBLEMS} more`);
  if (received !== null && typeof received === "object" && !Array.isArray(received)) {
    const entries = Object.entries(received);
    lines.push(`Received fields: ${entries.length === 0 ? "(none)" : ""}`);
    for (const [key, value] of entries.slice(0, MAX_FIELDS)) {
      lines.push(`- ${bound(key, 60)} (${summarizeValue(value)})`);
    }
    if (entries.length > MAX_FIELDS) lines.push(`- …and ${entries.length - MAX_FIELDS} more fields`);
  } else {
    lines.push(`Received: ${summarizeValue(received)}`);
  }
  lines.push("Fix the arguments to match the tool's schema and call it again.");
  return bound(lines.join("\n"), MAX_MESSAGE_CHARS);
}

/** Model-visible text for any failure kind: the kind first, then a bounded message. */
export function failureText(kind: ToolFailureKind, message: string): string {
  return bound(`${kind}: ${message}`, MAX_MESSAGE_CHARS);
}

function bound(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [truncated]`;
}
