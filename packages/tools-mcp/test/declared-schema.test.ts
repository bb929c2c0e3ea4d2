import { randomUUID } from "node:crypto";
import { type AnyTool, toolJsonSchema } from "@bridle/core";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { declaredInputSchema, McpServers } from "../src/index.js";
import { byName, toyConfig } from "./helpers.js";

const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((mcp) => mcp.close()));
});

describe("declaredInputSchema", () => {
  it("gives the schema the server listed, verbatim, apart from what the model is shown", async () => {
    const mcp = new McpServers(toyConfig(randomUUID(), "toy"));
    open.push(mcp);
    const echo = byName(await mcp.tools(), "mcp_toy_echo_text");
    const declared = {
      type: "object",
      properties: { text: { type: "string", minLength: 1 }, times: { type: "integer", minimum: 1 } },
      required: ["text"],
    };
    expect(declaredInputSchema(echo)).toEqual(declared);
    // The model's copy is closed to unknown fields; the server's is not touched by that.
    expect(toolJsonSchema(echo.inputSchema)).toMatchObject({ additionalProperties: false });
    const copy = declaredInputSchema(echo) as { required: string[] };
    copy.required.push("times");
    expect(declaredInputSchema(echo)).toEqual(declared);
  });

  it("knows nothing of a tool that does not come from an MCP server", () => {
    const local: AnyTool = {
      name: "local",
      description: "A tool of the harness's own",
      inputSchema: z.object({}),
      execute: async () => ({ content: "" }),
    };
    expect(declaredInputSchema(local)).toBeUndefined();
  });
});
