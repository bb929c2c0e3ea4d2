import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

// The README's runnable example, verbatim apart from the imports (source, not the built package).
it("runs the README example", async () => {
  const { Harness, textOf } = await import("@bridle/core");
  const { ScriptedModel } = await import("@bridle/testing");
  const { createHashlineTools } = await import("../src/index.js");

  // --- README example start ---
  const dir = await mkdtemp(join(tmpdir(), "hashline-demo-"));
  await writeFile(join(dir, "greet.ts"), 'export function greet() {\n  return "hi";\n}\n');

  // A scripted model: read the file, then replace line 2 by the tag the read showed.
  const model = new ScriptedModel([
    { toolCalls: [{ name: "read_file", arguments: { path: "greet.ts" } }] },
    ({ messages }) => {
      const read = messages.findLast((m) => m.role === "tool");
      const shown = read?.role === "tool" ? textOf(read.content) : "";
      const tag = /^ {3}2 ([0-9a-f]{8}) \|/m.exec(shown)?.[1] ?? "";
      return {
        toolCalls: [
          {
            name: "edit_file",
            arguments: {
              path: "greet.ts",
              edits: [{ op: "replace_line", tag, new_text: '  return "hello";' }],
            },
          },
        ],
      };
    },
    { text: "done" },
  ]);

  const harness = new Harness({ model, tools: [...createHashlineTools()], workspace: dir });
  const result = await harness.run({ prompt: "make greet say hello" });
  console.log(result.stopReason, await readFile(join(dir, "greet.ts"), "utf8"));
  // --- README example end ---

  expect(result.stopReason).toBe("completed");
  expect(await readFile(join(dir, "greet.ts"), "utf8")).toBe(
    'export function greet() {\n  return "hello";\n}\n',
  );
  await rm(dir, { recursive: true, force: true });
});
