import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";
import { afterEach, describe, expect, it } from "vitest";
import { createHashlineTools } from "../src/index.js";
import { expectOk, hashlines, setup, tagOf, toolContext } from "./helpers.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("beside @bridle/tools-fs", () => {
  it("shares the read-before-write memory with the fs toolkit's write_file and edit_file", async () => {
    const made = await tempWorkspace("bridle-hashline-fs-");
    cleanup = made.cleanup;
    const fs = createFsTools();
    const [readFileTool, editFileTool] = createHashlineTools({ tracker: fs.tracker });
    const ctx = toolContext(new Workspace(made.dir));
    const file = join(made.dir, "notes.md");
    await writeFile(file, "# Notes\nfirst\n");

    // A hashline read lets write_file overwrite the file.
    const read = await readFileTool.execute({ path: "notes.md" }, ctx);
    await fs.writeFile.execute({ path: "notes.md", content: "# Notes\nfirst\nsecond\n" }, ctx);
    // write_file's own write counts as known, and the tags of unchanged lines still hold.
    await editFileTool.execute(
      {
        path: "notes.md",
        edits: [{ op: "replace_line", tag: tagOf(String(read.content), 2), new_text: "FIRST" }],
      },
      ctx,
    );
    // And the hashline edit counts as known to the fs edit_file.
    await fs.editFile.execute({ path: "notes.md", old_string: "second", new_string: "SECOND" }, ctx);
    expect(await readFile(file, "utf8")).toBe("# Notes\nFIRST\nSECOND\n");
  });
});

describe("file state details", () => {
  it("suggests close names for a missing file", async () => {
    const t = await setup();
    await writeFile(join(t.dir, "config.json"), "{}\n");
    const result = await t.read({ path: "confg.json" });
    expect(result).toMatchObject({ ok: false, kind: "NotFound" });
    expect(result.text).toContain("config.json");
  });

  it("does not count a touch that changed no byte as a change on disk", async () => {
    const t = await setup();
    const file = join(t.dir, "a.txt");
    await writeFile(file, "one\ntwo\n");
    const read = expectOk(await t.read({ path: "a.txt" }));
    await utimes(file, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expectOk(await t.edit({ path: "a.txt", edits: [{ op: "delete_line", tag: tagOf(read, 1) }] }));
    expect(await readFile(file, "utf8")).toBe("two\n");
  });

  it("shows only the changed lines when many scattered edits would make the result long", async () => {
    const t = await setup();
    const file = join(t.dir, "long.txt");
    const lines = Array.from({ length: 3_000 }, (_, i) => `row ${i + 1}`);
    await writeFile(file, `${lines.join("\n")}\n`);
    const read = expectOk(await t.read({ path: "long.txt", limit: 3_000 }));
    const targets = Array.from({ length: 150 }, (_, i) => 1 + i * 20);
    const result = expectOk(
      await t.edit({
        path: "long.txt",
        edits: targets.map((line) => ({
          op: "replace_line",
          tag: tagOf(read, line),
          new_text: `ROW ${line}`,
        })),
      }),
    );
    const shown = hashlines(result);
    expect([...shown.keys()]).toEqual(targets);
    // Each shown tag works for a follow-up edit.
    expectOk(
      await t.edit({
        path: "long.txt",
        edits: targets.map((line) => ({
          op: "replace_line",
          tag: shown.get(line)?.tag,
          new_text: `again ${line}`,
        })),
      }),
    );
    expect((await readFile(file, "utf8")).split("\n")[20]).toBe("again 21");
  });

  it("reads and edits the far end of a 50 MB file", async () => {
    const t = await setup({ maxFileBytes: 128 * 1024 * 1024 });
    const file = join(t.dir, "huge.log");
    const line = `${"x".repeat(49)}`;
    const count = 1_000_000;
    await writeFile(file, `${`${line}\n`.repeat(count - 1)}last line\n`);
    const first = await t.read({ path: "huge.log" });
    // The page stops at the 100,000-character cap before 2,000 lines of 66 characters.
    expect(first.ok && first.details).toMatchObject({ totalLines: count, endLine: 1_515, nextOffset: 1_516 });
    const tail = expectOk(await t.read({ path: "huge.log", offset: count - 1 }));
    expectOk(
      await t.edit({
        path: "huge.log",
        edits: [{ op: "replace_line", tag: tagOf(tail, count), new_text: "the end" }],
      }),
    );
    const bytes = await readFile(file);
    expect(bytes.length).toBe(count * 50 - 50 + "the end\n".length);
    expect(bytes.subarray(-13).toString()).toBe(`${"x".repeat(4)}\nthe end\n`);
  });
});

describe("abort", () => {
  it("writes nothing when the call is aborted", async () => {
    const made = await tempWorkspace("bridle-hashline-abort-");
    cleanup = made.cleanup;
    const [readFileTool, editFileTool] = createHashlineTools();
    const controller = new AbortController();
    const ctx = toolContext(new Workspace(made.dir), "run-1", controller.signal);
    const file = join(made.dir, "a.txt");
    await writeFile(file, "keep\n");
    const read = await readFileTool.execute({ path: "a.txt" }, ctx);
    controller.abort();
    await expect(
      editFileTool.execute(
        { path: "a.txt", edits: [{ op: "delete_line", tag: tagOf(String(read.content), 1) }] },
        ctx,
      ),
    ).rejects.toThrow();
    expect(await readFile(file, "utf8")).toBe("keep\n");
  });
});
