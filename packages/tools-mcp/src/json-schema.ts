import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { z } from "zod";

type JsonObject = Record<string, unknown>;

export interface ConvertedSchema {
  /** Enforces the server's JSON Schema; core shows the model that schema (carried as zod metadata). */
  readonly schema: z.ZodType;
  /** Set when part of the schema could not be used (an external `$ref`, a schema the validator refuses). */
  readonly warning?: string;
}

// ajv-formats is CommonJS: its function is the default export's own default under Node's ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

let shared: Ajv | undefined;

/**
 * One validator for every MCP tool. Not strict (servers use keywords of every draft), formats checked,
 * never coercing or filling defaults: the server receives exactly what the model sent and applies its own.
 */
function validator(): Ajv {
  if (!shared) {
    shared = new Ajv({ strict: false, allErrors: true, validateSchema: false, addUsedSchema: false });
    addFormats(shared);
  }
  return shared;
}

// Keywords a provider refuses at the top of a tool's input schema (Anthropic, for one); they are lifted
// into properties the model can read, and enforced as the server wrote them.
const TOP_LEVEL_COMBINATORS = ["oneOf", "anyOf", "allOf"] as const;
const OPEN_ENDED = [
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "$ref",
  "patternProperties",
  "unevaluatedProperties",
];

/**
 * The schema the model sees and the check a call's arguments get, both from the server's JSON Schema: the
 * model sees it as written (`$defs`, local `$ref`s, conditionals kept), and a real JSON Schema validator
 * (ajv) enforces it, so whatever the server accepts passes. Adjustments, each for a reason:
 * - no `type` at the top: "object" (the specification requires it; providers refuse anything else);
 * - a plain object that says nothing about extra fields is closed, for the model and for the check;
 * - top-level `oneOf`/`anyOf`/`allOf`, which providers refuse there, are shown as the union of their
 *   branches' properties with the rule spelled out in the description, and enforced as written;
 * - an external `$ref` (not fetched) accepts any value there, and the warning says so.
 */
export function inputSchemaFromJson(inputSchema: unknown): ConvertedSchema {
  const enforced: JsonObject = isObject(inputSchema)
    ? { ...inputSchema }
    : { type: "object", properties: {} };
  // `id` is zod's own metadata key, and `$id`/`$schema` would make the shared validator keep or fetch it.
  for (const key of ["$schema", "$id", "id"]) delete enforced[key];
  if (enforced.type === undefined) enforced.type = "object";
  if (
    enforced.type === "object" &&
    enforced.additionalProperties === undefined &&
    !OPEN_ENDED.some((key) => key in enforced)
  ) {
    enforced.additionalProperties = false;
  }
  const external: string[] = [];
  const checked = dropExternalRefs(enforced, external) as JsonObject;
  const shown = liftCombinators(checked);
  const warnings: string[] = [];
  if (external.length > 0) {
    warnings.push(
      `input schema refers to ${[...new Set(external)].slice(0, 3).join(", ")}, which is not fetched; any value is accepted there and the server checks it`,
    );
  }
  let check: ValidateFunction | undefined;
  try {
    check = validator().compile(checked);
  } catch (error) {
    warnings.push(
      `input schema could not be compiled (${(error as Error).message}); arguments are checked by the server only`,
    );
  }
  const schema = z
    .unknown()
    .superRefine((value, ctx) => {
      if (!isObject(value)) {
        ctx.addIssue({ code: "custom", message: "arguments must be a JSON object" });
        return;
      }
      if (!check || check(value)) return;
      for (const error of check.errors ?? []) {
        ctx.addIssue({ code: "custom", message: describe(error), path: pathOf(error) });
      }
    })
    .meta(shown);
  return warnings.length === 0 ? { schema } : { schema, warning: warnings.join("; ") };
}

function pathOf(error: ErrorObject): string[] {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
  // Name the field itself, as core does for its own schemas.
  if (error.keyword === "additionalProperties") {
    path.push(String((error.params as { additionalProperty?: unknown }).additionalProperty));
  }
  return path;
}

function describe(error: ErrorObject): string {
  if (error.keyword === "additionalProperties") return "unknown field";
  const allowed = (error.params as { allowedValues?: unknown }).allowedValues;
  const message = error.message ?? `fails ${error.keyword}`;
  return Array.isArray(allowed) ? `${message}: ${allowed.map((v) => JSON.stringify(v)).join(", ")}` : message;
}

/** A copy with every `$ref` that leaves the document removed (noted in `found`). */
function dropExternalRefs(node: unknown, found: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => dropExternalRefs(item, found));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) {
      found.push(value);
      const note = `(defined by ${value}, not fetched)`;
      out.description = typeof node.description === "string" ? `${node.description} ${note}` : note;
      continue;
    }
    if (key === "description" && "description" in out) continue;
    out[key] = dropExternalRefs(value, found);
  }
  return out;
}

/** Top-level combinators as one object schema a provider accepts, the rule kept in the description. */
function liftCombinators(schema: JsonObject): JsonObject {
  const present = TOP_LEVEL_COMBINATORS.filter((key) => Array.isArray(schema[key]));
  if (present.length === 0) return schema;
  const shown: JsonObject = { ...schema };
  const properties: JsonObject = isObject(schema.properties) ? { ...schema.properties } : {};
  let required = new Set<string>(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const rules: string[] = [];
  for (const key of present) {
    const branches = (schema[key] as unknown[]).filter(isObject);
    delete shown[key];
    for (const branch of branches) {
      for (const [name, property] of Object.entries(isObject(branch.properties) ? branch.properties : {})) {
        const earlier = properties[name];
        if (earlier === undefined) properties[name] = property;
        else if (JSON.stringify(earlier) !== JSON.stringify(property)) {
          const options = isObject(earlier) && Array.isArray(earlier.anyOf) ? earlier.anyOf : [earlier];
          properties[name] = { anyOf: [...options, property] };
        }
      }
    }
    const branchRequired = branches.map(
      (branch) => new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []),
    );
    if (key === "allOf") {
      for (const names of branchRequired) for (const name of names) required.add(name);
    } else if (branchRequired.length > 0) {
      // Required whichever branch is taken: only what every branch requires.
      const common = [...(branchRequired[0] as Set<string>)].filter((name) =>
        branchRequired.every((names) => names.has(name)),
      );
      required = new Set([...required, ...common]);
    }
    const how = key === "oneOf" ? "exactly one" : key === "anyOf" ? "at least one" : "every one";
    rules.push(`The arguments must match ${how} of these schemas: ${JSON.stringify(branches)}`);
  }
  shown.type = "object";
  shown.properties = properties;
  if (required.size > 0) shown.required = [...required];
  else delete shown.required;
  const description = typeof schema.description === "string" ? `${schema.description}\n` : "";
  shown.description = `${description}${rules.join("\n")}`;
  return shown;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
