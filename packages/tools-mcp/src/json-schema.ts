import { z } from "zod";

type JsonObject = Record<string, unknown>;

export interface ConvertedSchema {
  readonly schema: z.ZodType;
  /** Set when the server's schema could not be converted and arguments go to the server unchecked. */
  readonly warning?: string;
}

/**
 * The zod schema a server's tool is enforced with; core derives the JSON Schema the model sees from it, so
 * shown and enforced cannot drift. Core rejects unknown top-level fields for every object tool, so a top
 * level that leaves `additionalProperties` open is closed here, which is also what the model is then shown.
 */
export function inputSchemaFromJson(inputSchema: unknown): ConvertedSchema {
  const source: JsonObject = isObject(inputSchema) ? { ...inputSchema } : { type: "object" };
  delete source.$schema;
  if (source.type === "object" && source.additionalProperties === undefined) {
    source.additionalProperties = false;
  }
  try {
    const schema = z.fromJSONSchema(source as z.core.JSONSchema.JSONSchema);
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
