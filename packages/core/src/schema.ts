import { z } from "zod";
import type { ToolSchema } from "./model.js";
import type { AnyTool } from "./tool.js";

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema the model sees, derived from the zod schema the harness enforces. The harness rejects
 * unknown fields, so the top-level object says `additionalProperties: false`; zod's safe-integer bounds
 * are dropped as noise.
 */
export function toolJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  if (json.type === "object" && json.additionalProperties === undefined) json.additionalProperties = false;
  return stripSafeIntegerBounds(json) as JsonSchema;
}

export function toolSchemaOf(tool: AnyTool): ToolSchema {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.inputSchema),
    ...(tool.format ? { format: tool.format } : {}),
  };
}

function stripSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSafeIntegerBounds);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = stripSafeIntegerBounds(value);
  }
  return out;
}

/** The base kind of a schema field, looking through optional, default, nullable and readonly wrappers. */
export function fieldKind(schema: z.ZodType): string {
  let current: z.core.$ZodType = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.core.$ZodType };
    if (
      (def.type === "optional" ||
        def.type === "default" ||
        def.type === "nullable" ||
        def.type === "readonly" ||
        def.type === "prefault") &&
      def.innerType
    ) {
      current = def.innerType;
      continue;
    }
    return def.type;
  }
}

/** The fields of an object schema, or undefined when the schema is not a plain object. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType> };
  return def.type === "object" ? def.shape : undefined;
}
