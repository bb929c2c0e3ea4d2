import { parseToolArguments, toolJsonSchema } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { inputSchemaFromJson, mapAnnotations, shapeCallResult } from "../src/index.js";

describe("annotations", () => {
  it("maps each hint and reads a missing one as false", () => {
    const definition = { name: "t", inputSchema: { type: "object" as const } };
    expect(mapAnnotations(definition, false)).toEqual({
      read_only: false,
      destructive: false,
      idempotent: false,
      open_world: false,
    });
    expect(
      mapAnnotations({ ...definition, annotations: { readOnlyHint: true, openWorldHint: true } }, true),
    ).toEqual({
      read_only: true,
      destructive: false,
      idempotent: false,
      open_world: true,
      requires_approval: true,
    });
  });
});

describe("input schemas", () => {
  it("shows the server's schema, closed at the top level because unknown fields are refused", () => {
    const source = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        query: { type: "string", description: "What to look for", maxLength: 100 },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
        mode: { type: "string", enum: ["fast", "deep"] },
        filters: { type: "array", items: { type: "object", properties: { field: { type: "string" } } } },
      },
      required: ["query"],
    };
    const { schema, warning } = inputSchemaFromJson(source);
    expect(warning).toBeUndefined();
    const shown = toolJsonSchema(schema);
    const { $schema: _, ...rest } = source;
    expect(shown).toMatchObject({ ...rest, additionalProperties: false });
    expect(schema.safeParse({ query: "a", limit: 0 }).success).toBe(false);
    expect(schema.safeParse({ query: "a", mode: "slow" }).success).toBe(false);
    // The server applies its own defaults: the arguments reach it as the model sent them.
    expect(schema.safeParse({ query: "a" }).data).toEqual({ query: "a" });
  });

  it("lets through the extra fields a schema explicitly allows, as the model is shown", () => {
    const map = inputSchemaFromJson({ type: "object", additionalProperties: { type: "string" } }).schema;
    expect(toolJsonSchema(map)).toEqual({ type: "object", additionalProperties: { type: "string" } });
    expect(parseToolArguments(map, '{"a":"x","b":"y"}')).toMatchObject({
      ok: true,
      value: { a: "x", b: "y" },
    });
    expect(parseToolArguments(map, '{"a":1}')).toMatchObject({ ok: false });

    const open = inputSchemaFromJson({
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: true,
    });
    expect(parseToolArguments(open.schema, '{"a":"x","extra":1}')).toMatchObject({ ok: true });
    const closed = inputSchemaFromJson({ type: "object", properties: { a: { type: "string" } } });
    expect(parseToolArguments(closed.schema, '{"a":"x","extra":1}')).toMatchObject({
      ok: false,
      problems: expect.arrayContaining(["extra: unknown field"]),
    });
  });

  it("reads properties without a type as an object, and follows local $refs", () => {
    const untyped = toolJsonSchema(inputSchemaFromJson({ properties: { a: { type: "string" } } }).schema);
    expect(untyped).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: false,
    });
    const recursive = inputSchemaFromJson({
      type: "object",
      properties: { node: { $ref: "#/$defs/node" } },
      $defs: {
        node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, v: { type: "number" } } },
      },
    }).schema;
    expect(recursive.safeParse({ node: { v: 1, next: { v: 2 } } }).success).toBe(true);
    expect(recursive.safeParse({ node: { v: 1, next: { v: "two" } } }).success).toBe(false);
  });

  it("accepts a missing schema as an empty object", () => {
    expect(toolJsonSchema(inputSchemaFromJson(undefined).schema)).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
  });

  it("reports an external $ref, shows where it points, and accepts any value there", () => {
    const { schema, warning } = inputSchemaFromJson({
      type: "object",
      properties: { a: { $ref: "https://x/y.json", description: "the thing" }, b: { type: "number" } },
    });
    expect(warning).toBe(
      "input schema refers to https://x/y.json, which is not fetched; any value is accepted there and the server checks it",
    );
    expect(toolJsonSchema(schema).properties).toEqual({
      a: { description: "the thing (defined by https://x/y.json, not fetched)" },
      b: { type: "number" },
    });
    expect(schema.safeParse({ a: { anything: 1 }, b: 2 }).success).toBe(true);
    expect(schema.safeParse({ a: 1, b: "two" }).success).toBe(false);
  });

  it("keeps $defs, $ref and if/then/else as the server wrote them, and enforces them", () => {
    const source = {
      type: "object",
      properties: {
        kind: { type: "string", enum: ["file", "url"] },
        target: { $ref: "#/$defs/target" },
        email: { type: "string", format: "email" },
      },
      required: ["kind", "target"],
      if: { properties: { kind: { const: "url" } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword, never awaited
      then: { properties: { target: { pattern: "^https://" } } },
      else: { properties: { target: { pattern: "^/" } } },
      $defs: { target: { type: "string", minLength: 2 } },
    };
    const { schema, warning } = inputSchemaFromJson(source);
    expect(warning).toBeUndefined();
    // Core closes any top-level object that does not say; the check stays as open as the server's.
    expect(toolJsonSchema(schema)).toEqual({ ...source, additionalProperties: false });
    const ok = (args: object) => parseToolArguments(schema, JSON.stringify(args)).ok;
    expect(ok({ kind: "url", target: "https://example.com" })).toBe(true);
    expect(ok({ kind: "file", target: "/etc/hosts" })).toBe(true);
    expect(ok({ kind: "url", target: "/etc/hosts" })).toBe(false);
    expect(ok({ kind: "file", target: "/" })).toBe(false);
    expect(ok({ kind: "file", target: "/a", email: "not an address" })).toBe(false);
    expect(ok({ kind: "file", target: "/a", email: "a@example.com" })).toBe(true);
    expect(parseToolArguments(schema, '{"kind":"disk","target":"/a"}')).toMatchObject({
      ok: false,
      problems: ['kind: must be equal to one of the allowed values: "file", "url"'],
    });
  });

  it("gives a top-level oneOf without types an object schema providers accept, and enforces the oneOf", () => {
    const source = {
      oneOf: [
        { properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
        { properties: { url: { type: "string" } }, required: ["url"], additionalProperties: false },
      ],
    };
    const { schema, warning } = inputSchemaFromJson(source);
    expect(warning).toBeUndefined();
    const shown = toolJsonSchema(schema);
    expect(shown).toMatchObject({
      type: "object",
      properties: { path: { type: "string" }, url: { type: "string" } },
    });
    expect(shown.oneOf).toBeUndefined();
    expect(shown.required).toBeUndefined();
    expect(shown.description).toBe(
      `The arguments must match exactly one of these schemas: ${JSON.stringify(source.oneOf)}`,
    );
    const ok = (args: object) => parseToolArguments(schema, JSON.stringify(args)).ok;
    expect(ok({ path: "/a" })).toBe(true);
    expect(ok({ url: "https://x" })).toBe(true);
    expect(ok({ path: "/a", url: "https://x" })).toBe(false);
    expect(ok({})).toBe(false);
  });

  it("names an unknown field and where a nested value is wrong", () => {
    const { schema } = inputSchemaFromJson({
      type: "object",
      properties: {
        items: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } },
      },
    });
    const parsed = parseToolArguments(schema, '{"items":[{"n":1},{"n":"2"}],"extra":true}');
    expect(parsed).toMatchObject({ ok: false });
    expect(parsed.ok ? [] : parsed.problems).toEqual(["extra: unknown field", "items.1.n: must be integer"]);
  });
});

describe("call results", () => {
  const options = { server: "s", tool: "t", maxOutputChars: 10_000 };

  it("joins text, keeps images in place and names what the model cannot see", () => {
    const output = shapeCallResult(
      {
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
          { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
          { type: "audio", data: "aGVsbG8=", mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
          { type: "resource", resource: { uri: "mem://b", text: "inline body" } },
          { type: "resource", resource: { uri: "mem://c", blob: "AAAA", mimeType: "application/zip" } },
        ],
      },
      options,
    );
    expect(output.content).toEqual([
      { type: "text", text: "one\ntwo" },
      { type: "image", mediaType: "image/png", data: "aGVsbG8=" },
      {
        type: "text",
        text: "[audio audio/wav, 5 bytes, not shown]\n[resource link: a.txt file:///a.txt (text/plain)]\n[resource mem://b]\ninline body\n[binary resource mem://c application/zip, 3 bytes, not shown]",
      },
    ]);
    expect(output.details).toMatchObject({
      attachments: [{ type: "audio" }, { type: "resource", uri: "mem://c" }],
    });
  });

  it("marks isError results as failed and shows structured content when there is no text", () => {
    const failed = shapeCallResult({ content: [{ type: "text", text: "nope" }], isError: true }, options);
    expect(failed).toMatchObject({ content: "nope", isError: true });
    const structured = shapeCallResult({ content: [], structuredContent: { n: 1 } }, options);
    expect(structured).toMatchObject({ content: '{"n":1}', details: { structuredContent: { n: 1 } } });
    expect(shapeCallResult({ content: [] }, options).content).toBe("(the tool returned no content)");
  });
});
