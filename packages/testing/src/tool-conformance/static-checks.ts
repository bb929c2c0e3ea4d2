import { type AnyTool, objectShape, type ToolOutput, toolJsonSchema } from "@bridle/core";
import { z } from "zod";

/** snake_case, as the model reads best and every Bridle tool is named (read_file, web_fetch). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const ANNOTATION_KEYS = new Set([
  "read_only",
  "destructive",
  "idempotent",
  "open_world",
  "requires_approval",
  "repeat_safe",
]);

/** Longest description a tool may carry: it is sent with every request. */
export const MAX_DESCRIPTION_CHARS = 4096;

/**
 * What is wrong with a tool's declaration, checked without running it: its name, description, schema
 * (derivable to JSON Schema with nothing dropped, an object that refuses unknown fields, every field
 * described), annotations and limits. An empty list means none found.
 */
export function toolDeclarationProblems(tool: AnyTool, namePattern: RegExp = TOOL_NAME_PATTERN): string[] {
  const problems: string[] = [];
  if (typeof tool.name !== "string" || !namePattern.test(tool.name)) {
    problems.push(`name ${JSON.stringify(tool.name)} does not match ${namePattern}`);
  }
  problems.push(...descriptionProblems(tool.description));
  problems.push(...schemaProblems(tool));
  problems.push(...annotationProblems(tool));
  if (tool.timeoutMs !== undefined && !(Number.isInteger(tool.timeoutMs) && tool.timeoutMs > 0)) {
    problems.push(`timeoutMs must be a positive integer, got ${tool.timeoutMs}`);
  }
  if (tool.retryBudget !== undefined && !(Number.isInteger(tool.retryBudget) && tool.retryBudget >= 0)) {
    problems.push(`retryBudget must be a non-negative integer, got ${tool.retryBudget}`);
  }
  if (tool.sequential !== undefined && typeof tool.sequential !== "boolean") {
    problems.push("sequential must be a boolean");
  }
  if (typeof tool.execute !== "function") problems.push("execute is not a function");
  return problems;
}

function descriptionProblems(description: unknown): string[] {
  if (typeof description !== "string") return ["description is not a string"];
  const problems: string[] = [];
  if (description.trim().length < 10) problems.push("description is shorter than 10 characters");
  if (description !== description.trim()) problems.push("description has leading or trailing whitespace");
  if (description.length > MAX_DESCRIPTION_CHARS) {
    problems.push(`description is longer than ${MAX_DESCRIPTION_CHARS} characters (${description.length})`);
  }
  return problems;
}

function schemaProblems(tool: AnyTool): string[] {
  let json: Record<string, unknown>;
  try {
    // "throw": a type JSON Schema cannot express would reach the model as an unconstrained field.
    z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "throw" });
    json = toolJsonSchema(tool.inputSchema);
  } catch (error) {
    return [`input schema cannot be shown to the model as JSON Schema: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  if (JSON.stringify(json) !== JSON.stringify(toolJsonSchema(tool.inputSchema))) {
    problems.push(
      "input schema derives to different JSON Schema on each call (the toolset digest needs it stable)",
    );
  }
  if (json.type !== "object" || !objectShape(tool.inputSchema)) {
    problems.push("input schema is not a plain z.object (providers require an object at the top level)");
    return problems;
  }
  if (json.additionalProperties !== false) {
    problems.push("input schema accepts unknown fields (use z.object, not z.looseObject or a catchall)");
  }
  const properties = (json.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [key, property] of Object.entries(properties)) {
    if (typeof property.description !== "string" || property.description.trim() === "") {
      problems.push(`field "${key}" has no description (.describe(...)): the model guesses what it means`);
    }
  }
  return problems;
}

function annotationProblems(tool: AnyTool): string[] {
  const annotations = tool.annotations;
  if (annotations === undefined) return [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(annotations)) {
    if (!ANNOTATION_KEYS.has(key)) problems.push(`unknown annotation "${key}"`);
    else if (typeof value !== "boolean") problems.push(`annotation "${key}" is not a boolean`);
  }
  if (annotations.read_only && annotations.destructive) {
    problems.push("annotations say both read_only and destructive");
  }
  return problems;
}

/**
 * What is wrong with one output of `execute`: content the model can read (text or image parts, not
 * empty), `isError` a boolean when set, `details` plain JSON (stores persist it with the events).
 */
export function toolOutputProblems(output: ToolOutput): string[] {
  const problems: string[] = [];
  if (output === null || typeof output !== "object")
    return ["execute resolved to something other than an object"];
  const { content } = output;
  if (typeof content === "string") {
    if (content.length === 0) problems.push("content is an empty string");
  } else if (Array.isArray(content)) {
    if (content.length === 0) problems.push("content is an empty array");
    for (const part of content) {
      if (part?.type === "text") {
        if (typeof part.text !== "string") problems.push("a text part has no text");
      } else if (part?.type === "image") {
        if (typeof part.mediaType !== "string") problems.push("an image part has no mediaType");
        if (part.data === undefined && part.url === undefined)
          problems.push("an image part has neither data nor url");
      } else {
        problems.push(`content part of type ${JSON.stringify(part?.type)} is neither text nor image`);
      }
    }
  } else {
    problems.push("content is neither a string nor an array of parts");
  }
  if (output.isError !== undefined && typeof output.isError !== "boolean")
    problems.push("isError is not a boolean");
  if (output.details !== undefined) {
    const problem = jsonProblem(output.details, "details");
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Whether a value survives a JSON round trip unchanged (no functions, class instances, cycles, undefined holes). */
function jsonProblem(value: unknown, where: string): string | undefined {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return `${where} cannot be serialized as JSON: ${(error as Error).message}`;
  }
  if (text === undefined) return `${where} is not JSON`;
  return deepEqualJson(JSON.parse(text), value)
    ? undefined
    : `${where} changes in a JSON round trip (not plain data)`;
}

function deepEqualJson(parsed: unknown, original: unknown): boolean {
  if (original === null || typeof original !== "object") {
    return parsed === original;
  }
  if (Array.isArray(original)) {
    return (
      Array.isArray(parsed) &&
      parsed.length === original.length &&
      original.every((item, i) => deepEqualJson(parsed[i], item))
    );
  }
  const prototype = Object.getPrototypeOf(original);
  if (prototype !== Object.prototype && prototype !== null) return false;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return false;
  const keys = Object.keys(original).filter(
    (key) => (original as Record<string, unknown>)[key] !== undefined,
  );
  return (
    keys.length === Object.keys(parsed).length &&
    keys.every((key) =>
      deepEqualJson((parsed as Record<string, unknown>)[key], (original as Record<string, unknown>)[key]),
    )
  );
}
