import type { z } from "zod";
import { errorMessage } from "./errors.js";
import { fieldKind, objectShape } from "./schema.js";
import type { Tool } from "./tool.js";

const PATH_FIELD = /(^|_)(path|file|dir|directory|cwd)$/i;

export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown; readonly repairs: readonly string[] }
  | {
      readonly ok: false;
      readonly problems: readonly string[];
      readonly received: unknown;
    };

/**
 * Parse and validate a call's raw JSON arguments. The tool's own `prepare` step (its field aliases) runs
 * first; when validation then fails, the narrow repairs of seed 000 are tried on a copy (string booleans
 * and numbers, markdown autolinks on path fields) and kept only if the repaired copy then passes in full.
 * Nothing is repaired while an unknown field remains.
 */
export function parseToolArguments(
  schema: z.ZodType,
  raw: string,
  prepare?: Tool["prepareArguments"],
): ParsedArguments {
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
  let prepared: readonly string[] = [];
  if (prepare) {
    try {
      const result = prepare(input);
      input = result.args;
      prepared = result.repairs;
    } catch (error) {
      return { ok: false, problems: [`arguments refused: ${errorMessage(error)}`], received: input };
    }
  }
  const first = validate(schema, shape, input);
  if (first.ok) {
    // A path written as a markdown link still validates as a string; the link form is never meant.
    const cleaned = shape ? cleanPathLinks(shape, input as Record<string, unknown>) : undefined;
    if (cleaned) {
      const again = validate(schema, shape, cleaned.value);
      if (again.ok) return { ok: true, value: again.value, repairs: [...prepared, ...cleaned.repairs] };
    }
    return { ok: true, value: first.value, repairs: prepared };
  }
  if (!shape) return { ok: false, problems: first.problems, received: input };

  const { value: repaired, repairs } = repairObject(shape, input as Record<string, unknown>);
  if (repairs.length > 0) {
    const second = validate(schema, shape, repaired);
    if (second.ok) return { ok: true, value: second.value, repairs: [...prepared, ...repairs] };
  }
  return { ok: false, problems: first.problems, received: input };
}

/**
 * A `prepareArguments` step renaming the spellings a tool accepts for its own fields (`{ filePath:
 * "path" }`). A name is renamed only when the real field is absent, so a call sending both is refused
 * with the alias named as an unknown field.
 */
export function argumentAliases(
  aliases: Readonly<Record<string, string>>,
): NonNullable<Tool["prepareArguments"]> {
  return (raw) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { args: raw, repairs: [] };
    const input = raw as Record<string, unknown>;
    const renames = Object.keys(input).filter((key) => {
      const target = Object.hasOwn(aliases, key) ? aliases[key] : undefined;
      return target !== undefined && !Object.hasOwn(input, target);
    });
    if (renames.length === 0) return { args: raw, repairs: [] };
    const args: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      args[renames.includes(key) ? (aliases[key] as string) : key] = value;
    }
    return { args, repairs: renames.map((key) => `${key}→${aliases[key]}`) };
  };
}

function validate(
  schema: z.ZodType,
  shape: Record<string, z.ZodType> | undefined,
  input: unknown,
): { ok: true; value: unknown } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (shape) {
    for (const key of Object.keys(input as object)) {
      if (!Object.hasOwn(shape, key)) problems.push(`${key}: unknown field${meantField(key, shape, input)}`);
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

/**
 * A hint for an unknown field that another spelling of a missing field (`oldString` for `old_string`,
 * `filePath` for `path`): named for the model to fix its call, never applied. Only one candidate, or none.
 */
function meantField(key: string, shape: Record<string, z.ZodType>, input: unknown): string {
  const snake = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  const candidates = Object.keys(shape).filter(
    (field) =>
      !Object.hasOwn(input as object, field) &&
      (field === snake || snake.endsWith(`_${field}`) || field.endsWith(`_${snake}`)),
  );
  return candidates.length === 1 ? ` (did you mean "${candidates[0]}"?)` : "";
}

function repairObject(
  shape: Record<string, z.ZodType>,
  input: Record<string, unknown>,
): { value: Record<string, unknown>; repairs: string[] } {
  const repairs: string[] = [];
  const value: Record<string, unknown> = { ...input };
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
