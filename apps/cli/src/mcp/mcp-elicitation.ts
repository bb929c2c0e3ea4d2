// A server's elicitation asked of the person at the terminal: a form field by field (SEP-1034 defaults are
// left to the MCP client, which fills them in for fields left empty), or a URL to open.
import type { McpElicitation, McpServersOptions } from "@bridle/tools-mcp";
import { oneLine } from "../terminal/display-text.js";

export type ElicitAnswer = Awaited<ReturnType<NonNullable<McpServersOptions["onElicitation"]>>>;
type Value = string | number | boolean | string[];
/** One question on the terminal; "" when nobody answered (Ctrl-D, abort). */
export type Ask = (question: string) => Promise<string>;

interface FieldSchema {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly enumNames?: readonly string[];
  readonly oneOf?: readonly { const?: unknown; title?: string }[];
  readonly anyOf?: readonly { const?: unknown; title?: string }[];
  readonly items?: FieldSchema;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
}

// A field that is answered wrongly this many times in a row ends the form as cancelled.
const ATTEMPTS = 3;

/**
 * Asks one elicitation; `say` writes a line for the person (stderr). Once `withdrawn` aborts (the answer is
 * moot), nothing more is asked and the form is cancelled.
 */
export async function askElicitation(
  request: McpElicitation,
  ask: Ask,
  say: (text: string) => void,
  withdrawn?: AbortSignal,
): Promise<ElicitAnswer> {
  const from = `MCP server "${oneLine(request.server, 60)}"`;
  if (request.mode === "url") {
    // The URL is shown whole (it is what the person checks before opening it), escaped like any server text.
    say(`${from} asks you to open a page: ${oneLine(request.url, 2_000)}\n  ${oneLine(request.message)}\n`);
    const choice = await ask("  [a]ccept (open it yourself) / [d]ecline / [c]ancel: ");
    return { action: withdrawn?.aborted ? "cancel" : decision(choice) };
  }
  say(`${from} asks: ${oneLine(request.message)}\n`);
  const choice = decision(await ask("  [a]nswer / [d]ecline / [c]ancel: "));
  if (withdrawn?.aborted) return { action: "cancel" };
  if (choice !== "accept") return { action: choice };
  const schema = request.requestedSchema as {
    properties: Record<string, FieldSchema>;
    required?: readonly string[];
  };
  const required = new Set(schema.required ?? []);
  const content: Record<string, Value> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = await askField(name, field, required.has(name), ask, say, withdrawn);
    if (value === CANCELLED || withdrawn?.aborted) return { action: "cancel" };
    if (value !== undefined) content[name] = value;
  }
  return { action: "accept", content };
}

const CANCELLED = Symbol("cancelled");

async function askField(
  name: string,
  field: FieldSchema,
  required: boolean,
  ask: Ask,
  say: (text: string) => void,
  withdrawn?: AbortSignal,
): Promise<Value | undefined | typeof CANCELLED> {
  const choices = choicesOf(field.type === "array" ? (field.items ?? {}) : field);
  const hasDefault = field.default !== undefined;
  const label = [
    `  ${oneLine(field.title ?? name)}`,
    field.description ? ` (${oneLine(field.description)})` : "",
    choices ? ` ${choices.map((choice, i) => `${i + 1}=${oneLine(choice.label, 80)}`).join(", ")}` : "",
    field.type === "boolean" ? " [y/n]" : "",
    field.type === "array" ? " (comma-separated)" : "",
    hasDefault
      ? ` [default ${oneLine(JSON.stringify(field.default) ?? "", 80)}]`
      : required
        ? " (required)"
        : " (optional)",
    ": ",
  ].join("");
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const answer = (await ask(label)).trim();
    if (withdrawn?.aborted) return CANCELLED;
    // Left empty: the client fills in the schema's default (SEP-1034); an optional field stays out.
    if (answer === "" && (hasDefault || !required)) return undefined;
    const parsed = answer === "" ? { problem: "an answer is required" } : parse(answer, field, choices);
    if ("value" in parsed) return parsed.value;
    say(`  ${parsed.problem}\n`);
  }
  return CANCELLED;
}

interface Choice {
  readonly value: string;
  readonly label: string;
}

/** An enumeration's values (plain `enum`, titled `oneOf`/`anyOf` consts, legacy `enumNames`). */
function choicesOf(field: FieldSchema): Choice[] | undefined {
  const titled = field.oneOf ?? field.anyOf;
  if (titled) {
    return titled
      .filter((option) => typeof option.const === "string")
      .map((option) => ({ value: option.const as string, label: option.title ?? (option.const as string) }));
  }
  if (field.enum) {
    return field.enum
      .filter((value): value is string => typeof value === "string")
      .map((value, i) => ({ value, label: field.enumNames?.[i] ?? value }));
  }
  return undefined;
}

function parse(
  answer: string,
  field: FieldSchema,
  choices: Choice[] | undefined,
): { value: Value } | { problem: string } {
  if (field.type === "array") {
    const picked: string[] = [];
    for (const part of answer
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean)) {
      const one = pick(part, choices);
      if ("problem" in one) return one;
      picked.push(one.value);
    }
    if (field.minItems !== undefined && picked.length < field.minItems)
      return { problem: `pick at least ${field.minItems}` };
    if (field.maxItems !== undefined && picked.length > field.maxItems)
      return { problem: `pick at most ${field.maxItems}` };
    return { value: picked };
  }
  if (choices) return pick(answer, choices);
  switch (field.type) {
    case "boolean":
      if (/^(y|yes|true|1)$/i.test(answer)) return { value: true };
      if (/^(n|no|false|0)$/i.test(answer)) return { value: false };
      return { problem: "answer y or n" };
    case "integer":
    case "number": {
      const value = Number(answer);
      if (!Number.isFinite(value) || (field.type === "integer" && !Number.isInteger(value)))
        return { problem: `a${field.type === "integer" ? "n integer" : " number"} is needed` };
      if (field.minimum !== undefined && value < field.minimum)
        return { problem: `at least ${field.minimum}` };
      if (field.maximum !== undefined && value > field.maximum)
        return { problem: `at most ${field.maximum}` };
      return { value };
    }
    default:
      if (field.minLength !== undefined && answer.length < field.minLength)
        return { problem: `at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && answer.length > field.maxLength)
        return { problem: `at most ${field.maxLength} characters` };
      return { value: answer };
  }
}

/** A choice by its number, its value or its label. */
function pick(answer: string, choices: Choice[] | undefined): { value: string } | { problem: string } {
  if (!choices) return { value: answer };
  const byNumber = /^\d+$/.test(answer) ? choices[Number(answer) - 1] : undefined;
  const found = byNumber ?? choices.find((choice) => choice.value === answer || choice.label === answer);
  return found
    ? { value: found.value }
    : { problem: `choose one of ${oneLine(choices.map((choice) => choice.value).join(", "), 300)}` };
}

/** What the person chose; no answer at all (Ctrl-D, Enter) is a dismissal, which MCP calls cancel. */
function decision(choice: string): "accept" | "decline" | "cancel" {
  const answer = choice.trim().toLowerCase();
  if (answer === "a" || answer === "accept" || answer === "y" || answer === "yes") return "accept";
  if (answer === "d" || answer === "decline" || answer === "n" || answer === "no") return "decline";
  return "cancel";
}
