import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyTool } from "@bridle/core";
import { describeToolConformance } from "@bridle/testing/vitest";
import { createFsTools } from "../src/index.js";

const SOURCE = "export const greeting = 'hi';\n";

async function source(workspace: string): Promise<void> {
  await mkdir(join(workspace, "src"), { recursive: true });
  await writeFile(join(workspace, "src", "greet.ts"), SOURCE);
}

/**
 * edit_file only changes a file its run has read, and the suite's runs are its own (fresh run ids), so
 * each call is preceded by a real read_file in the same run, as a model's would be. Declaration, schema
 * and prepareArguments are edit_file's own.
 */
function editAfterRead(): AnyTool {
  const fs = createFsTools();
  const edit: AnyTool = fs.editFile;
  return {
    ...edit,
    async execute(args, ctx) {
      const path = (args as { path: string }).path;
      await fs.readFile.execute({ path }, ctx);
      return edit.execute(args, ctx);
    },
  };
}

describeToolConformance("read_file (tools-fs)", {
  create: () => createFsTools().readFile,
  validArgs: async (workspace) => {
    await source(workspace);
    return { path: "src/greet.ts" };
  },
  aliasedArgs: async (workspace) => {
    await source(workspace);
    return { filePath: "src/greet.ts", offset: 1, limit: 10 };
  },
  invalidArgs: () => [{ path: "" }, { path: "a.ts", offset: 0 }, { path: "a.ts", filePath: "b.ts" }],
});

describeToolConformance("write_file (tools-fs)", {
  create: () => createFsTools().writeFile,
  validArgs: () => ({ path: "notes/new.md", content: "# new\n" }),
  aliasedArgs: () => ({ filePath: "notes/new.md", content: "# new\n" }),
  invalidArgs: () => [
    { path: "", content: "x" },
    { path: "a.md" },
    { path: "a.md", content: "x", filePath: "b.md" },
  ],
});

describeToolConformance("edit_file (tools-fs)", {
  create: editAfterRead,
  validArgs: async (workspace) => {
    await source(workspace);
    return { path: "src/greet.ts", old_string: "'hi'", new_string: "'hello'" };
  },
  aliasedArgs: async (workspace) => {
    await source(workspace);
    return { filePath: "src/greet.ts", oldString: "'hi'", newString: "'hello'", replaceAll: false };
  },
  invalidArgs: () => [
    { path: "", old_string: "'hi'", new_string: "x" },
    { path: "src/greet.ts", old_string: "'hi'" },
    { path: "src/greet.ts", old_string: "'hi'", new_string: "x", replace_all: "yes" },
    { path: "src/greet.ts", oldString: "'hi'", old_string: "'hi'", new_string: "x" },
  ],
});

describeToolConformance("list_dir (tools-fs)", {
  create: () => createFsTools().listDir,
  validArgs: async (workspace) => {
    await source(workspace);
    return { path: "src" };
  },
  invalidArgs: () => [{ path: "" }],
});

describeToolConformance("glob (tools-fs)", {
  create: () => createFsTools().glob,
  validArgs: async (workspace) => {
    await source(workspace);
    return { pattern: "**/*.ts" };
  },
  invalidArgs: () => [{ pattern: "" }],
});

describeToolConformance("grep (tools-fs)", {
  create: () => createFsTools().grep,
  validArgs: async (workspace) => {
    await source(workspace);
    return { pattern: "greeting" };
  },
  invalidArgs: () => [{ pattern: "" }, { pattern: "x", max_matches: 0 }],
});
