import { z } from "zod";

type JsonObject = Record<string, unknown>;

export interface ConvertedSchema {
  readonly schema: z.ZodType;
  /** Set when the server's schema could not be converted and arguments go to the server unchecked. */
  readonly warning?: string;
}

/**
 * The zod schema a server's tool is enforced with; core derives the JSON Schema the model sees from it, so
 * shown and enforced cannot drift. Core refuses unknown top-level fields of a plain object schema, so:
 * a top level that says nothing about extra fields is closed (the model is shown that), and one that
 * explicitly allows them is wrapped in a pipe, which core does not treat as a plain object, so the extra
 * fields the model is shown as allowed are indeed let through.
 */
export function inputSchemaFromJson(inputSchema: unknown): ConvertedSchema {
  const source: JsonObject = isObject(inputSchema) ? { ...inputSchema } : { type: "object" };
  delete source.$schema;
  // The specification requires type "object"; a server that leaves it out still means an object.
  if (source.type === undefined && isObject(source.properties)) source.type = "object";
  const open =
    source.type === "object" &&
    source.additionalProperties !== undefined &&
    source.additionalProperties !== false;
  if (source.type === "object" && source.additionalProperties === undefined) {
    source.additionalProperties = false;
  }
  try {
    const converted = z.fromJSONSchema(source as z.core.JSONSchema.JSONSchema);
    const schema = open ? converted.pipe(z.unknown()) : converted;
    // Converting back proves the model-visible schema can be produced; some inputs only fail there.
    z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    return { schema };
  } catch (error) {
    return {
      // A record, not an object: core applies no unknown-field rule to it, and the server still validates.
      schema: z.record(z.string(), z.unknown()),
      warning: `input schema could not be converted (${(error as Error).message}); arguments are checked by the server only`,
    };
  }
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
