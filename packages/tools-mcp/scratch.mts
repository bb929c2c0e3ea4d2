import { z } from "zod";
import { objectShape, parseToolArguments, toolJsonSchema } from "../core/src/index.ts";

const cases = {
  map: { type: "object", additionalProperties: { type: "string" } },
  openTop: { type: "object", properties: { a: { type: "string" } }, additionalProperties: true },
  noType: { properties: { a: { type: "string" } } },
  anyOf: {
    anyOf: [
      { type: "object", properties: { a: { type: "string" } } },
      { type: "object", properties: { b: { type: "number" } } },
    ],
  },
  defs: {
    type: "object",
    properties: { n: { $ref: "#/$defs/node" } },
    $defs: {
      node: { type: "object", properties: { v: { type: "string" }, next: { $ref: "#/$defs/node" } } },
    },
  },
  nullable: { type: "object", properties: { a: { type: ["string", "null"] } } },
  patternProps: { type: "object", patternProperties: { "^x": { type: "string" } } },
};
for (const [name, schema] of Object.entries(cases)) {
  try {
    const zs = z.fromJSONSchema(schema as never);
    console.log(name, zs._zod.def.type, !!objectShape(zs), JSON.stringify(toolJsonSchema(zs)));
    console.log("   parse {a:'x'}:", JSON.stringify(parseToolArguments(zs, '{"a":"x"}')).slice(0, 150));
  } catch (e) {
    console.log(name, "ERR", (e as Error).message);
  }
}
