import { chmod, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness } from "@bridle/core";
import { collectEvents, ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import type { WriteFileDetails } from "../src/index.js";
import { fixture, text } from "./helpers.js";

describe("write_file", () => {
  it("creates files and missing parent folders inside the workspace", async () => {
    const fx = await fixture();
    const out = await fx.call<WriteFileDetails>(fx.kit.writeFile, {
      path: "src/new/deep.ts",
      content: "export {};\n",
    });
    expect(text(out)).toBe("Created src/new/deep.ts (11 bytes, 1 lines).");
    expect(out.details).toEqual({
      path: "src/new/deep.ts",
      created: true,
      bytes: 11,
      lines: 1,
      diffs: [
        {
          path: "src/new/deep.ts",
          change: "add",
          added: 1,
          removed: 0,
          hunks: [{ oldStart: 1, newStart: 1, removed: [], added: ["export {};"] }],
          omittedLines: 0,
        },
      ],
    });
    expect(await readFile(join(fx.dir, "src/new/deep.ts"), "utf8")).toBe("export {};\n");
    expect(await readdir(join(fx.dir, "src/new"))).toEqual(["deep.ts"]);
  });

  it("overwrites an existing file only after reading it, atomically, keeping its mode and line endings", async () => {
    const fx = await fixture();
    await fx.files({ "run.sh": "#!/bin/sh\r\necho old\r\n" });
    await chmod(join(fx.dir, "run.sh"), 0o755);
    const unread = await fx.fail(fx.kit.writeFile, { path: "run.sh", content: "x" });
    expect(unread.kind).toBe("Conflict");
    expect(await readFile(join(fx.dir, "run.sh"), "utf8")).toBe("#!/bin/sh\r\necho old\r\n");

    await fx.call(fx.kit.readFile, { path: "run.sh" });
    const out = await fx.call<WriteFileDetails>(fx.kit.writeFile, {
      path: "run.sh",
      content: "#!/bin/sh\necho new\n",
    });
    expect(out.details?.created).toBe(false);
    // The diff is of lines, whatever their endings: only the changed one shows.
    expect(out.details?.diffs[0]?.hunks).toEqual([
      {
        oldStart: 2,
        newStart: 2,
        removed: [expect.stringMatching(/^echo old\r?$/)],
        added: [expect.stringMatching(/^echo new\r?$/)],
      },
    ]);
    expect(await readFile(join(fx.dir, "run.sh"), "utf8")).toBe("#!/bin/sh\r\necho new\r\n");
    expect((await stat(join(fx.dir, "run.sh"))).mode & 0o777).toBe(0o755);
    expect((await readdir(fx.dir)).filter((name) => name.includes("bridle-tmp"))).toEqual([]);
    // The run's own write counts as seen: writing again needs no new read.
    await fx.call(fx.kit.writeFile, { path: "run.sh", content: "#!/bin/sh\n" });
  });

  it("refuses to overwrite a file changed on disk after the read", async () => {
    const fx = await fixture();
    await fx.files({ "notes.md": "mine\n" });
    await fx.call(fx.kit.readFile, { path: "notes.md" });
    await writeFile(join(fx.dir, "notes.md"), "theirs\n");
    const conflict = await fx.fail(fx.kit.writeFile, { path: "notes.md", content: "mine, updated\n" });
    expect(conflict.kind).toBe("Conflict");
    expect(await readFile(join(fx.dir, "notes.md"), "utf8")).toBe("theirs\n");
  });

  it("refuses folders and is marked destructive, idempotent and sequential", async () => {
    const fx = await fixture();
    await fx.files({ "dir/a": "" });
    expect((await fx.fail(fx.kit.writeFile, { path: "dir", content: "x" })).kind).toBe("InvalidInput");
    expect(fx.kit.writeFile.annotations).toEqual({ destructive: true, idempotent: true });
    expect(fx.kit.writeFile.sequential).toBe(true);
  });

  it("runs inside a harness: the read-before-write memory is per run, the toolkit is shared", async () => {
    const fx = await fixture();
    await fx.files({ "app.txt": "v1\n" });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { path: "app.txt" } }] },
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "app.txt", old_string: "v1", new_string: "v2" } },
        ],
      },
      { text: "done" },
      // A second run has not read the file: its edit is a Conflict the model sees.
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "app.txt", old_string: "v2", new_string: "v3" } },
        ],
      },
      { text: "gave up" },
    ]);
    const harness = new Harness({ model, tools: fx.kit.tools, workspace: fx.workspace });
    const first = await collectEvents(harness.stream({ prompt: "bump" }));
    expect(first.at(-1)?.type).toBe("run_completed");
    expect(await readFile(join(fx.dir, "app.txt"), "utf8")).toBe("v2\n");
    const second = await collectEvents(harness.stream({ prompt: "bump again" }));
    const completed = second.find((event) => event.type === "tool_call_completed");
    expect(completed).toMatchObject({ result: { isError: true, errorKind: "Conflict" } });
    expect(await readFile(join(fx.dir, "app.txt"), "utf8")).toBe("v2\n");
  });
});
