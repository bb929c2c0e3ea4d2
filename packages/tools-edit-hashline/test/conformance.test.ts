import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyTool } from "@bridle/core";
import { describeToolConformance } from "@bridle/testing/vitest";
import { createHashlineTools, lineTag } from "../src/index.js";

const LINES = ["export function greet() {", '  return "hi";', "}"];

async function source(workspace: string): Promise<void> {
  await writeFile(join(workspace, "greet.ts"), `${LINES.join("\n")}\n`);
}

const edits = () => [
  { op: "replace_line", tag: lineTag(2, LINES[1] as string), new_text: '  return "hello";' },
];

/**
 * edit_file only takes tags its run was shown, and the suite's runs are its own (fresh run ids), so each
 * call is preceded by a real read_file of the pair in the same run, as a model's would be. Declaration,
 * schema and prepareArguments are edit_file's own.
 */
function editAfterRead(): AnyTool {
  const [read, edit] = createHashlineTools();
  return {
    ...edit,
    async execute(args, ctx) {
      await read.execute({ path: (args as { path: string }).path }, ctx);
      return edit.execute(args, ctx);
    },
  } as AnyTool;
}

describeToolConformance("read_file (hashline)", {
  create: () => createHashlineTools()[0],
  validArgs: async (workspace) => {
    await source(workspace);
    return { path: "greet.ts" };
  },
  aliasedArgs: async (workspace) => {
    await source(workspace);
    return { filePath: "greet.ts", offset: 2, limit: 1 };
  },
  invalidArgs: () => [{ path: "" }, { path: "greet.ts", offset: 0 }, { path: "greet.ts", filePath: "x.ts" }],
});

describeToolConformance("edit_file (hashline)", {
  create: editAfterRead,
  validArgs: async (workspace) => {
    await source(workspace);
    return { path: "greet.ts", edits: edits() };
  },
  aliasedArgs: async (workspace) => {
    await source(workspace);
    return { filePath: "greet.ts", edits: edits() };
  },
  invalidArgs: () => [
    { path: "greet.ts", edits: [] },
    { path: "greet.ts", edits: [{ op: "replace_line", tag: "3f9a0b1c" }] },
    { path: "greet.ts", edits: [{ op: "delete_line", tag: "3f9a0b1c", new_text: "x" }] },
    { path: "greet.ts", edits: edits(), verbatim: "yes" },
  ],
});
