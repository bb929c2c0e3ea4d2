import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness, type ToolResultMessage, textOf, toolSchemaOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { describeToolConformance } from "@bridle/testing/vitest";
import { createFsTools } from "@bridle/tools-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { APPLY_PATCH_LARK_GRAMMAR, createApplyPatchTool } from "../src/index.js";
import { wrapPatch } from "./helpers.js";

describeToolConformance("apply_patch", {
  create: () => createApplyPatchTool(),
  validArgs: () => ({ input: wrapPatch("*** Add File: hello.txt\n+hello") }),
});

describeToolConformance("apply_patch (freeform form)", {
  create: () => createApplyPatchTool({ form: "freeform" }),
  validArgs: () => ({ input: wrapPatch("*** Add File: docs/hello.md\n+# hello") }),
});

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
  await writeFile(join(dir, "app.py"), "def main():\n    print('hi')\n");
});
afterEach(() => cleanup());

const update = (from: string, to: string) =>
  wrapPatch(`*** Update File: app.py\n@@ def main():\n-    print('${from}')\n+    print('${to}')`);

/** Runs the scripted calls in one run; returns each tool result in order. */
async function run(
  calls: { name: string; arguments: Record<string, unknown> }[][],
  between?: () => Promise<void>,
) {
  const fs = createFsTools();
  let step = 0;
  const model = new ScriptedModel([
    ...calls.map((toolCalls) => async () => {
      if (step++ > 0) await between?.();
      return { toolCalls };
    }),
    { text: "done" },
  ]);
  const harness = new Harness({
    model,
    tools: [fs.readFile, createApplyPatchTool({ tracker: fs.tracker })],
    workspace: dir,
  });
  const result = await harness.run({ prompt: "edit" });
  return result.messages.filter((message): message is ToolResultMessage => message.role === "tool");
}

describe("replacing a file with Add File or Move to, as Codex does", () => {
  const add = (path: string, line: string) => wrapPatch(`*** Add File: ${path}\n+${line}`);
  const move = wrapPatch(
    "*** Update File: app.py\n*** Move to: main.py\n@@ def main():\n-    print('hi')\n+    print('moved')",
  );

  it("replaces a file the run read and that is unchanged since, and refuses one it never read", async () => {
    await writeFile(join(dir, "notes.md"), "old\n");
    const unread = await run([[{ name: "apply_patch", arguments: { input: add("notes.md", "new") } }]]);
    expect(unread[0]?.isError).toBe(true);
    expect(textOf(unread[0]?.content ?? [])).toContain(
      "notes.md already exists (patch line 2) and has not been read in this run, so it is not replaced",
    );
    expect(await readFile(join(dir, "notes.md"), "utf8")).toBe("old\n");
    const results = await run([
      [{ name: "read_file", arguments: { path: "notes.md" } }],
      [{ name: "apply_patch", arguments: { input: add("notes.md", "new") } }],
    ]);
    expect(results[1]?.isError).toBe(false);
    expect(textOf(results[1]?.content ?? [])).toContain("A notes.md");
    expect(await readFile(join(dir, "notes.md"), "utf8")).toBe("new\n");
  });

  it("refuses to replace a file that changed after the read, and writes nothing of the patch", async () => {
    await writeFile(join(dir, "notes.md"), "old\n");
    const results = await run(
      [
        [{ name: "read_file", arguments: { path: "notes.md" } }],
        [
          {
            name: "apply_patch",
            arguments: { input: wrapPatch("*** Add File: fresh.txt\n+x\n*** Add File: notes.md\n+new") },
          },
        ],
      ],
      () => writeFile(join(dir, "notes.md"), "someone else's\n"),
    );
    expect(results[1]?.isError).toBe(true);
    expect(textOf(results[1]?.content ?? [])).toContain(
      "notes.md already exists (patch line 4) and changed on disk since this run read it",
    );
    expect(await readFile(join(dir, "notes.md"), "utf8")).toBe("someone else's\n");
    await expect(readFile(join(dir, "fresh.txt"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("moves onto a destination the run read, and refuses one it did not", async () => {
    await writeFile(join(dir, "main.py"), "stale\n");
    const refused = await run([
      [{ name: "read_file", arguments: { path: "app.py" } }],
      [{ name: "apply_patch", arguments: { input: move } }],
    ]);
    expect(textOf(refused[1]?.content ?? [])).toContain("main.py already exists (the move of app.py");
    expect(await readFile(join(dir, "main.py"), "utf8")).toBe("stale\n");
    const moved = await run([
      [{ name: "read_file", arguments: { path: "app.py" } }],
      [{ name: "read_file", arguments: { path: "main.py" } }],
      [{ name: "apply_patch", arguments: { input: move } }],
    ]);
    expect(moved[2]?.isError).toBe(false);
    expect(await readFile(join(dir, "main.py"), "utf8")).toBe("def main():\n    print('moved')\n");
    await expect(readFile(join(dir, "app.py"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("never replaces through a symbolic link or over a folder", async () => {
    const { mkdir, symlink } = await import("node:fs/promises");
    await writeFile(join(dir, "target.txt"), "t\n");
    await symlink("target.txt", join(dir, "link.txt"));
    await mkdir(join(dir, "folder"));
    const results = await run([
      [{ name: "read_file", arguments: { path: "target.txt" } }],
      [{ name: "apply_patch", arguments: { input: add("link.txt", "x") } }],
      [{ name: "apply_patch", arguments: { input: add("folder", "x") } }],
    ]);
    expect(textOf(results[1]?.content ?? [])).toContain("link.txt is a symbolic link");
    expect(textOf(results[2]?.content ?? [])).toContain("folder is a directory");
    expect(await readFile(join(dir, "target.txt"), "utf8")).toBe("t\n");
  });
});

describe("apply_patch in a run", () => {
  it("updates a file the run has read, and again without reading it back", async () => {
    const results = await run([
      [{ name: "read_file", arguments: { path: "app.py" } }],
      [{ name: "apply_patch", arguments: { input: update("hi", "hello") } }],
      [{ name: "apply_patch", arguments: { input: update("hello", "bye") } }],
    ]);
    expect(results.map((result) => result.errorKind)).toEqual([undefined, undefined, undefined]);
    expect(textOf(results[1]?.content ?? [])).toBe("Success. Updated the following files:\nM app.py");
    expect(await readFile(join(dir, "app.py"), "utf8")).toBe("def main():\n    print('bye')\n");
  });

  it("refuses to update or delete a file the run has not read, as a Conflict", async () => {
    const results = await run([
      [{ name: "apply_patch", arguments: { input: update("hi", "hello") } }],
      [{ name: "apply_patch", arguments: { input: wrapPatch("*** Delete File: app.py") } }],
      [{ name: "apply_patch", arguments: { input: wrapPatch("*** Add File: new.py\n+x = 1") } }],
    ]);
    expect(results.map((result) => result.errorKind)).toEqual(["Conflict", "Conflict", undefined]);
    expect(textOf(results[0]?.content ?? [])).toContain("has not been read in this run");
    expect(await readFile(join(dir, "app.py"), "utf8")).toBe("def main():\n    print('hi')\n");
  });

  it("refuses a file changed on disk since the run read it", async () => {
    const results = await run(
      [
        [{ name: "read_file", arguments: { path: "app.py" } }],
        [{ name: "apply_patch", arguments: { input: update("hi", "hello") } }],
      ],
      () => writeFile(join(dir, "app.py"), "def main():\n    print('hi')\n# edited by a person\n"),
    );
    expect(results[1]?.errorKind).toBe("Conflict");
    expect(textOf(results[1]?.content ?? [])).toContain("changed on disk");
    expect(await readFile(join(dir, "app.py"), "utf8")).toContain("# edited by a person");
  });

  it("a patch that does not fit is an InvalidInput the model can act on", async () => {
    const results = await run([
      [{ name: "read_file", arguments: { path: "app.py" } }],
      [{ name: "apply_patch", arguments: { input: update("bye", "hello") } }],
    ]);
    expect(results[1]?.errorKind).toBe("InvalidInput");
    const text = textOf(results[1]?.content ?? []);
    expect(text).toContain("app.py, chunk 1 of 1");
    expect(text).toContain("     2\t    print('hi')");
  });
});

describe("the two forms", () => {
  it("both take { input }; the freeform one also carries the Lark grammar, as core's format", () => {
    const json = createApplyPatchTool();
    const freeform = createApplyPatchTool({ form: "freeform" });
    expect(toolSchemaOf(json)).not.toHaveProperty("format");
    expect(toolSchemaOf(freeform).format).toEqual({
      type: "grammar",
      syntax: "lark",
      definition: APPLY_PATCH_LARK_GRAMMAR,
    });
    expect(toolSchemaOf(freeform).inputSchema).toEqual(toolSchemaOf(json).inputSchema);
    expect(freeform.description).toBe(json.description);
  });

  it("a patch longer than maxPatchChars is refused by the schema", async () => {
    const tool = createApplyPatchTool({ maxPatchChars: 100 });
    expect(tool.inputSchema.safeParse({ input: "x".repeat(101) }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ input: "x".repeat(100) }).success).toBe(true);
  });
});
