import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness, type RunEvent, textOf } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsTools } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
  await writeFile(join(dir, "a.txt"), "one\ntwo\n");
});
afterEach(() => cleanup());

const repairsOf = (events: readonly RunEvent[]) =>
  events.flatMap((e) => (e.type === "tool_call_requested" ? [e.repairs] : []));

describe("the spellings the file tools accept", () => {
  it("reads, edits and writes with OpenCode's camelCase names, and says so on the recorded calls", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { filePath: "a.txt" } }] },
      {
        toolCalls: [
          {
            name: "edit_file",
            arguments: { filePath: "a.txt", oldString: "two", newString: "2", replaceAll: false },
          },
        ],
      },
      { toolCalls: [{ name: "write_file", arguments: { filePath: "b.txt", content: "new\n" } }] },
      { text: "done" },
    ]);
    const stream = new Harness({ model, tools: createFsTools().tools, workspace: dir }).stream({
      prompt: "go",
    });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("one\n2\n");
    expect(await readFile(join(dir, "b.txt"), "utf8")).toBe("new\n");
    expect(repairsOf(events)).toEqual([
      ["filePath→path"],
      ["filePath→path", "oldString→old_string", "newString→new_string", "replaceAll→replace_all"],
      ["filePath→path"],
    ]);
  });

  it("refuses a call sending both spellings, naming the alias as the field to drop", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt", filePath: "b.txt" } }] },
      { text: "done" },
    ]);
    const result = await new Harness({ model, tools: createFsTools().tools, workspace: dir }).run({
      prompt: "go",
    });
    const answer = result.messages[2];
    expect(answer?.role === "tool" && answer.errorKind).toBe("InvalidInput");
    expect(answer?.role === "tool" ? textOf(answer.content) : "").toContain("filePath: unknown field");
  });
});
