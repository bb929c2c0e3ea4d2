// SEP-2243: a tool whose x-mcp-header declarations are invalid must not be called, so it is left out.
import { describe, expect, it } from "vitest";
import { invalidHeaderParams } from "../src/header-params.js";

const tool = (properties: Record<string, unknown>) => ({ type: "object", properties });

describe("x-mcp-header declarations", () => {
  it.each([
    ["none at all", tool({ a: { type: "string" } })],
    [
      "a string, an integer and a boolean",
      tool({
        region: { type: "string", "x-mcp-header": "Region" },
        priority: { type: "integer", "x-mcp-header": "Priority" },
        dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
      }),
    ],
    ["a schema without properties", { type: "object" }],
  ])("valid: %s", (_, schema) => {
    expect(invalidHeaderParams(schema)).toBeUndefined();
  });

  it.each([
    ["empty", tool({ v: { type: "string", "x-mcp-header": "" } }), /is not a non-empty string/],
    ["not a string", tool({ v: { type: "string", "x-mcp-header": 7 } }), /is not a non-empty string/],
    ["on a number", tool({ v: { type: "number", "x-mcp-header": "Score" } }), /on a "number" argument/],
    ["on null", tool({ v: { type: "null", "x-mcp-header": "Nil" } }), /on a "null" argument/],
    ["on an object", tool({ v: { type: "object", "x-mcp-header": "Obj" } }), /on a "object" argument/],
    ["on an array", tool({ v: { type: "array", "x-mcp-header": "Arr" } }), /on a "array" argument/],
    [
      "twice, same case",
      tool({
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "Region" },
      }),
      /names a header another argument already has/,
    ],
    [
      "twice, other case",
      tool({
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "REGION" },
      }),
      /names a header another argument already has/,
    ],
    ["a space", tool({ v: { type: "string", "x-mcp-header": "My Region" } }), /is not an HTTP header name/],
    ["a colon", tool({ v: { type: "string", "x-mcp-header": "Region:" } }), /is not an HTTP header name/],
    ["non-ASCII", tool({ v: { type: "string", "x-mcp-header": "Régión" } }), /is not an HTTP header name/],
    [
      "a control character",
      tool({ v: { type: "string", "x-mcp-header": "Re\tgion" } }),
      /is not an HTTP header name/,
    ],
  ])("invalid: %s", (_, schema, reason) => {
    expect(invalidHeaderParams(schema)).toMatch(reason);
  });
});
