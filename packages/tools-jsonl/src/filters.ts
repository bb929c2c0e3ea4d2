import { ToolFailure } from "@bridle/core";
import { z } from "zod";
import { type DottedPath, missing, parseDottedPath, valueAt } from "./dotted-path.js";
import { quotedIfVerbatim, verbatimRun } from "./prefilter.js";

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const bound = z.union([z.number(), z.string()]);

export const filterSchema = z
  .object({
    field: z.string().min(1).describe("Dotted path into the row, e.g. level, user.id or items.0.sku"),
    equals: scalar
      .optional()
      .describe("The field equals this value exactly (string, number, boolean or null)"),
    contains: z.string().min(1).optional().describe("The field's text contains this substring"),
    regex: z
      .string()
      .min(1)
      .optional()
      .describe("The field's text matches this JavaScript regular expression"),
    min: bound
      .optional()
      .describe("The field is at least this (numbers compare as numbers, strings such as ISO dates as text)"),
    max: bound.optional().describe("The field is at most this (same comparison as min)"),
  })
  .strict();

export type FilterInput = z.infer<typeof filterSchema>;

/** One compiled condition on one field; `hit` finds where a text condition matched, for the snippet. */
export interface Filter {
  readonly field: string;
  readonly path: DottedPath;
  test(row: unknown): boolean;
  /** Where in the field's text the condition matched, to centre a snippet on it. */
  hit?(text: string): number;
  /** A string every line holding a matching row contains, and whether case is ignored for it. */
  readonly literal?: string;
}

const MAX_REGEX_CHARS = 1_000;

export function compileFilter(input: FilterInput, ignoreCase: boolean): Filter {
  const path = parseDottedPath(input.field);
  if (!path)
    throw new ToolFailure("InvalidInput", `field "${input.field}" is not a dotted path such as user.id`);
  const kinds = [
    input.equals !== undefined,
    input.contains !== undefined,
    input.regex !== undefined,
    input.min !== undefined || input.max !== undefined,
  ].filter(Boolean).length;
  if (kinds !== 1) {
    throw new ToolFailure(
      "InvalidInput",
      `filter on "${input.field}" needs exactly one of equals, contains, regex, or min/max (it has ${kinds})`,
    );
  }
  const key = keyLiteral(path);
  const base = { field: input.field, path };
  if (input.equals !== undefined) {
    const wanted = input.equals;
    const literal =
      typeof wanted === "string" ? (quotedIfVerbatim(wanted) ?? verbatimRun(wanted) ?? key) : key;
    return { ...base, test: (row) => valueAt(row, path) === wanted, ...(literal ? { literal } : {}) };
  }
  if (input.contains !== undefined) {
    const needle = ignoreCase ? input.contains.toLowerCase() : input.contains;
    const fold = (text: string) => (ignoreCase ? text.toLowerCase() : text);
    const literal = verbatimRun(input.contains) ?? key;
    return {
      ...base,
      test: (row) => {
        const text = textOf(valueAt(row, path));
        return text !== undefined && fold(text).includes(needle);
      },
      hit: (text) => fold(text).indexOf(needle),
      ...(literal ? { literal } : {}),
    };
  }
  if (input.regex !== undefined) {
    const pattern = compileRegex(input.regex, ignoreCase);
    return {
      ...base,
      test: (row) => {
        const text = textOf(valueAt(row, path));
        return text !== undefined && pattern.test(text);
      },
      hit: (text) => text.search(pattern),
      ...(key ? { literal: key } : {}),
    };
  }
  const { min, max } = input;
  if (min !== undefined && max !== undefined && typeof min !== typeof max) {
    throw new ToolFailure(
      "InvalidInput",
      `filter on "${input.field}": min and max must both be numbers or both text`,
    );
  }
  const kind = typeof (min ?? max);
  return {
    ...base,
    test: (row) => {
      const value = valueAt(row, path);
      if (typeof value !== kind) return false;
      const comparable = value as number | string;
      return (min === undefined || comparable >= min) && (max === undefined || comparable <= max);
    },
    ...(key ? { literal: key } : {}),
  };
}

/** The field's text for contains and regex: a string as it is, a number or boolean as JSON writes it. */
function textOf(value: unknown): string | undefined {
  if (value === missing || value === null || typeof value === "object") return undefined;
  return typeof value === "string" ? value : String(value);
}

/** The quoted last key of the path (`"level"`): a row with the field has it on its line. */
function keyLiteral(path: DottedPath): string | undefined {
  for (let index = path.length - 1; index >= 0; index--) {
    const segment = path[index] as string;
    if (/^\d+$/.test(segment)) continue;
    return quotedIfVerbatim(segment);
  }
  return undefined;
}

function compileRegex(source: string, ignoreCase: boolean): RegExp {
  if (source.length > MAX_REGEX_CHARS) {
    throw new ToolFailure("InvalidInput", `regex is longer than ${MAX_REGEX_CHARS} characters`);
  }
  try {
    return new RegExp(source, ignoreCase ? "iu" : "u");
  } catch (error) {
    throw new ToolFailure(
      "InvalidInput",
      `regex ${JSON.stringify(source)} is invalid: ${(error as Error).message}`,
    );
  }
}
