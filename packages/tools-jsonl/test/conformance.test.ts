import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { describeToolConformance } from "@bridle/testing/vitest";
import { expect, it } from "vitest";
import { createJsonlSearchTool } from "../src/index.js";

describeToolConformance("jsonl_search", {
  create: () => createJsonlSearchTool(),
  validArgs: async (workspace) => {
    await writeFile(join(workspace, "log.jsonl"), '{"level":"error","msg":"disk full"}\n');
    return { path: "log.jsonl", filters: [{ field: "level", equals: "error" }] };
  },
  invalidArgs: () => [{ filters: [{ field: "level", equals: "a", extra: 1 }] }, { limit: 0 }],
});

it("answers a scripted model's call in a run with the row and its line", async () => {
  const { dir, cleanup } = await tempWorkspace();
  try {
    await writeFile(join(dir, "app.jsonl"), '{"level":"info"}\n{"level":"error","msg":"boom"}\n');
    const model = new ScriptedModel([
      {
        toolCalls: [{ name: "jsonl_search", arguments: { filters: [{ field: "level", equals: "error" }] } }],
      },
      { text: "found it" },
    ]);
    const harness = new Harness({ model, tools: [createJsonlSearchTool()], workspace: dir });
    const result = await harness.run({ prompt: "find errors" });
    const toolResult = result.messages.find((message) => message.role === "tool");
    const text = JSON.stringify(toolResult?.content);
    expect(text).toContain('app.jsonl:2 {\\"level\\":\\"error\\",\\"msg\\":\\"boom\\"}');
  } finally {
    await cleanup();
  }
});
