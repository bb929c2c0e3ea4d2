import { type AnyTool, toolJsonSchema } from "@bridle/core";

/** A call's raw argument text the harness must refuse with InvalidInput, and why. */
export interface InvalidCall {
  readonly why: string;
  readonly arguments: string;
}

/**
 * Calls every tool must refuse before it runs, derived from its schema and a valid call: malformed JSON,
 * a non-object, an unknown extra field, each required field missing, and each typed field given a value
 * of another type that no repair turns back into a valid one.
 */
export function invalidCalls(tool: AnyTool, validArgs: Readonly<Record<string, unknown>>): InvalidCall[] {
  const json = toolJsonSchema(tool.inputSchema);
  const properties = (json.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(json.required) ? (json.required as string[]) : [];
  const calls: InvalidCall[] = [
    { why: "malformed JSON", arguments: '{"unterminated": ' },
    { why: "an array instead of an object", arguments: "[1, 2, 3]" },
    {
      why: "an unknown extra field",
      arguments: JSON.stringify({ ...validArgs, conformance_unknown_field: true }),
    },
  ];
  for (const key of required) {
    const { [key]: _dropped, ...rest } = validArgs;
    calls.push({ why: `required field "${key}" missing`, arguments: JSON.stringify(rest) });
  }
  for (const [key, property] of Object.entries(properties)) {
    const wrong = wrongValueFor(property.type);
    if (wrong === undefined) continue;
    calls.push({
      why: `field "${key}" of the wrong type`,
      arguments: JSON.stringify({ ...validArgs, [key]: wrong }),
    });
  }
  return calls;
}

/** A value of another JSON type (strings of digits or "true" would be repaired, so none are used). */
function wrongValueFor(type: unknown): unknown {
  switch (type) {
    case "string":
    case "number":
    case "integer":
    case "boolean":
    case "array":
      return { conformance: "wrong type" };
    case "object":
      return 42;
    default:
      // Unions, enums without a type, unconstrained fields: no single value is surely wrong.
      return undefined;
  }
}
