import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness, type Message, textOf, toolSchemaOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { createHashlineTools } from "../src/index.js";
import { tagOf } from "./helpers.js";

function lastToolText(messages: readonly Message[]): string {
  const result = messages.findLast((m) => m.role === "tool");
  return result && result.role === "tool" ? textOf(result.content) : "";
}

describe("in a run", () => {
  it("is one read_file and one edit_file whose schemas the model sees as enforced", () => {
    const tools = createHashlineTools();
    expect(tools.map((tool) => tool.name)).toEqual(["read_file", "edit_file"]);
    const edit = toolSchemaOf(tools[1]).inputSchema as {
      properties: { edits: { items: { oneOf?: unknown[]; anyOf?: unknown[] } } };
      additionalProperties: boolean;
    };
    expect(edit.additionalProperties).toBe(false);
    const variants = edit.properties.edits.items.oneOf ?? edit.properties.edits.items.anyOf ?? [];
    expect(variants).toHaveLength(4);
    expect(tools[0].annotations).toEqual({ read_only: true, idempotent: true });
    expect(tools[1].annotations).toEqual({ destructive: true });
  });

  it("lets a scripted model read, fail on a stale tag, and recover from the error alone", async () => {
    const { dir, cleanup } = await tempWorkspace("bridle-hashline-run-");
    try {
      await writeFile(join(dir, "greet.ts"), 'export function greet() {\n  return "hi";\n}\n');
      let firstRead = "";
      const model = new ScriptedModel([
        { toolCalls: [{ name: "read_file", arguments: { path: "greet.ts" } }] },
        ({ messages }) => {
          firstRead = lastToolText(messages);
          return {
            toolCalls: [
              {
                name: "edit_file",
                arguments: {
                  path: "greet.ts",
                  edits: [
                    { op: "insert_after", tag: tagOf(firstRead, 1), new_text: '  console.log("greeting");' },
                  ],
                },
              },
            ],
          };
        },
        // Uses a tag from the first read that the insertion made stale.
        () => ({
          toolCalls: [
            {
              name: "edit_file",
              arguments: {
                path: "greet.ts",
                edits: [{ op: "replace_line", tag: tagOf(firstRead, 2), new_text: '  return "hello";' }],
              },
            },
          ],
        }),
        ({ messages }) => {
          const error = lastToolText(messages);
          return {
            toolCalls: [
              {
                name: "edit_file",
                arguments: {
                  path: "greet.ts",
                  edits: [{ op: "replace_line", tag: tagOf(error, 3), new_text: '  return "hello";' }],
                },
              },
            ],
          };
        },
        { text: "done" },
      ]);
      const harness = new Harness({ model, tools: createHashlineTools(), workspace: dir });
      const result = await harness.run({ prompt: "say hello" });
      expect(result.stopReason).toBe("completed");
      const toolResults = result.messages.filter((m) => m.role === "tool");
      expect(toolResults.map((m) => m.role === "tool" && (m.errorKind ?? "ok"))).toEqual([
        "ok",
        "ok",
        "Conflict",
        "ok",
      ]);
      expect(await readFile(join(dir, "greet.ts"), "utf8")).toBe(
        'export function greet() {\n  console.log("greeting");\n  return "hello";\n}\n',
      );
    } finally {
      await cleanup();
    }
  });
});
