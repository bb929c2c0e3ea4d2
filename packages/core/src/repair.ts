import type { z } from "zod";
import { fieldKind, objectShape } from "./schema.js";

// The only renames seed 000 allows: deterministic, and nothing inferred from history or content.
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  filePath: "path",
  oldString: "old_string",
  newString: "new_string",
  replaceAll: "replace_all",
  cmd: "command",
};

const PATH_FIELD = /(^|_)(path|file|dir|directory|cwd)$/i;

export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown; readonly repairs: readonly string[] }
  | {
      readonly ok: false;
      readonly problems: readonly string[];
      readonly received: unknown;
    };

/**
 * Parse and validate a call's raw JSON arguments. When validation fails, the narrow repairs of seed 000 are
 * tried on a copy (field aliases, string booleans and numbers, markdown autolinks on path fields) and
 * kept only if the repaired copy then passes in full. Nothing is repaired while an unknown field remains.
 */
export function parseToolArguments(schema: z.ZodType, raw: string): ParsedArguments {
  let input: unknown;
  try {
    input = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      problems: [`arguments are not valid JSON (${(error as Error).message})`],
      received: raw,
    };
  }
  const shape = objectShape(schema);
  if (shape && (input === null || typeof input !== "object" || Array.isArray(input))) {
    return { ok: false, problems: ["arguments must be a JSON object"], received: input };
  }
  const first = validate(schema, shape, input);
  if (first.ok) {
    // A path written as a markdown link still validates as a string; the link form is never meant.
    const cleaned = shape ? cleanPathLinks(shape, input as Record<string, unknown>) : undefined;
    if (cleaned) {
      const again = validate(schema, shape, cleaned.value);
      if (again.ok) return { ok: true, value: again.value, repairs: cleaned.repairs };
    }
    return { ok: true, value: first.value, repairs: [] };
  }
  if (!shape) return { ok: false, problems: first.problems, received: input };

  const { value: repaired, repairs } = repairObject(shape, input as Record<string, unknown>);
  if (repairs.length > 0) {
    const second = validate(schema, shape, repaired);
    if (second.ok) return { ok: true, value: second.value, repairs };
  }
  return { ok: false, problems: first.problems, received: input };
}

function validate(
  schema: z.ZodType,
  shape: Record<string, z.ZodType> | undefined,
  input: unknown,
): { ok: true; value: unknown } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (shape) {
    for (const key of Object.keys(input as object)) {
      if (!Object.hasOwn(shape, key)) problems.push(`${key}: unknown field`);
    }
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const where = issue.path.length > 0 ? issue.path.join(".") : "(arguments)";
      problems.push(`${where}: ${issue.message}`);
    }
  }
  return problems.length === 0 && result.success ? { ok: true, value: result.data } : { ok: false, problems };
}

function repairObject(
  shape: Record<string, z.ZodType>,
  input: Record<string, unknown>,
): { value: Record<string, unknown>; repairs: string[] } {
  const repairs: string[] = [];
  const value: Record<string, unknown> = {};
  for (const [key, fieldValue] of Object.entries(input)) {
    const target = FIELD_ALIASES[key];
    if (
      target &&
      !Object.hasOwn(shape, key) &&
      Object.hasOwn(shape, target) &&
      !Object.hasOwn(input, target)
    ) {
      value[target] = fieldValue;
      repairs.push(`${key}→${target}`);
    } else {
      value[key] = fieldValue;
    }
  }
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = shape[key];
    if (!field || typeof fieldValue !== "string") continue;
    const kind = fieldKind(field);
    if (kind === "boolean" && (fieldValue === "true" || fieldValue === "false")) {
      value[key] = fieldValue === "true";
      repairs.push(`${key}: "${fieldValue}"→${fieldValue}`);
    } else if (kind === "number" && /^-?\d+(\.\d+)?$/.test(fieldValue.trim())) {
      value[key] = Number(fieldValue.trim());
      repairs.push(`${key}: "${fieldValue}"→${value[key]}`);
    }
  }
  const links = cleanPathLinks(shape, value);
  return links ? { value: links.value, repairs: [...repairs, ...links.repairs] } : { value, repairs };
}

function cleanPathLinks(
  shape: Record<string, z.ZodType>,
  input: Record<string, unknown>,
): { value: Record<string, unknown>; repairs: string[] } | undefined {
  let value: Record<string, unknown> | undefined;
  const repairs: string[] = [];
  for (const [key, fieldValue] of Object.entries(input)) {
    const field = shape[key];
    if (!field || typeof fieldValue !== "string" || !PATH_FIELD.test(key) || fieldKind(field) !== "string")
      continue;
    const cleaned = stripAutolink(fieldValue);
    if (cleaned === fieldValue) continue;
    value ??= { ...input };
    value[key] = cleaned;
    repairs.push(`${key}: markdown link→${cleaned}`);
  }
  return value ? { value, repairs } : undefined;
}

/** `[a.ts](a.ts)`, `[a.ts](file:///abs/a.ts)`-style links whose text is the path, and `<a.ts>`. */
function stripAutolink(value: string): string {
  const trimmed = value.trim();
  const link = /^\[([^\]\n]+)\]\(([^)\s]+)\)$/.exec(trimmed);
  if (link) {
    const text = link[1] as string;
    const target = (link[2] as string).replace(/^file:\/\//, "").replace(/^https?:\/\//, "");
    return target === text || target.endsWith(`/${text}`) || text.endsWith(target) ? text : value;
  }
  const angle = /^<([^<>\s]+)>$/.exec(trimmed);
  return angle ? (angle[1] as string) : value;
}
