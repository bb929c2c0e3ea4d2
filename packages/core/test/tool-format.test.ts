import { ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, Harness, toolSchemaOf } from "../src/index.js";

const grammar = { type: "grammar", syntax: "lark", definition: 'start: "hi"' } as const;
const freeform = defineTool({
  name: "shout",
  description: "Say it",
  inputSchema: z.object({ input: z.string().describe("what to say") }),
  format: grammar,
  async execute(args) {
    return { content: args.input.toUpperCase() };
  },
});

describe("a tool's free-form input format", () => {
  it("reaches the model request beside the JSON Schema, and only for the tool that has one", async () => {
    expect(toolSchemaOf(freeform).format).toEqual(grammar);
    const { format: _, ...rest } = freeform;
    const plain = defineTool({ ...rest, name: "say" });
    expect("format" in toolSchemaOf(plain)).toBe(false);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "shout", arguments: { input: "hi" } }] },
      { text: "ok" },
    ]);
    const result = await new Harness({ model, tools: [freeform, plain] }).run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    expect(model.requests[0]?.tools.map((tool) => [tool.name, tool.format])).toEqual([
      ["shout", grammar],
      ["say", undefined],
    ]);
    expect(model.requests[0]?.tools[0]?.inputSchema).toMatchObject({
      properties: { input: { type: "string" } },
    });
  });
});
