import { chmod, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EditFileDetails } from "../src/index.js";
import { type Fixture, fixture, text } from "./helpers.js";

async function readThenEdit(fx: Fixture, path: string, edit: Record<string, unknown>, runId = "run-1") {
  await fx.call(fx.kit.readFile, { path }, runId);
  return fx.call<EditFileDetails>(fx.kit.editFile, { path, ...edit }, runId);
}

const bytesOf = (fx: Fixture, path: string) => readFile(join(fx.dir, path));

describe("edit_file", () => {
  it("replaces one exact match and shows the changed region", async () => {
    const fx = await fixture();
    await fx.files({ "a.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
    const out = await readThenEdit(fx, "a.ts", {
      old_string: "const b = 2;",
      new_string: "const b = 20;\nconst bb = 21;",
    });
    expect(await readFile(join(fx.dir, "a.ts"), "utf8")).toBe(
      "const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n",
    );
    expect(text(out)).toBe(
      "Edited a.ts: 1 replacement (line 2).\n\n1\tconst a = 1;\n2\tconst b = 20;\n3\tconst bb = 21;\n4\tconst c = 3;",
    );
    expect(out.details).toMatchObject({
      path: "a.ts",
      replacements: 1,
      repairs: [],
      hunks: [{ line: 2, oldText: "const b = 2;" }],
    });
  });

  it("says how to fix an ambiguous or missing old_string, and changes nothing", async () => {
    const fx = await fixture();
    const original = "x = 1\ny = 2\nx = 1\n    z = 3\n";
    await fx.files({ "a.py": original });
    await fx.call(fx.kit.readFile, { path: "a.py" });
    const ambiguous = await fx.fail(fx.kit.editFile, {
      path: "a.py",
      old_string: "x = 1",
      new_string: "x = 2",
    });
    expect(ambiguous.kind).toBe("InvalidInput");
    expect(ambiguous.message).toBe(
      "old_string matches 2 places (lines 1, 3). Include more surrounding lines so it matches exactly one, or set replace_all: true to change every one.",
    );
    const missing = await fx.fail(fx.kit.editFile, {
      path: "a.py",
      old_string: "\tz = 3\n",
      new_string: "z = 4",
    });
    expect(missing.kind).toBe("InvalidInput");
    expect(missing.message).toContain("must match the file exactly");
    expect(missing.message).toContain(
      "Did you mean line 4? Its text matches apart from whitespace. Current text there (copy old_string from it, without the line numbers):\n4\t    z = 3",
    );
    expect((await fx.fail(fx.kit.editFile, { path: "a.py", old_string: "", new_string: "q" })).kind).toBe(
      "InvalidInput",
    );
    expect(
      (await fx.fail(fx.kit.editFile, { path: "a.py", old_string: "y = 2", new_string: "y = 2" })).kind,
    ).toBe("InvalidInput");
    expect(await readFile(join(fx.dir, "a.py"), "utf8")).toBe(original);

    const all = await fx.call<EditFileDetails>(fx.kit.editFile, {
      path: "a.py",
      old_string: "x = 1",
      new_string: "x = 9",
      replace_all: true,
    });
    expect(all.details?.replacements).toBe(2);
    expect(await readFile(join(fx.dir, "a.py"), "utf8")).toBe("x = 9\ny = 2\nx = 9\n    z = 3\n");
  });

  it("repairs a JSON-escaped old_string only when that matches exactly one place", async () => {
    const fx = await fixture();
    await fx.files({ "a.js": 'log("hi");\nif (a) {\n\treturn "x";\n}\n', "b.js": 'say("a");\nsay("a");\n' });
    const out = await readThenEdit(fx, "a.js", {
      old_string: 'if (a) {\\n\\treturn \\"x\\";',
      new_string: 'if (a) {\\n\\treturn \\"y\\";',
    });
    expect(await readFile(join(fx.dir, "a.js"), "utf8")).toBe('log("hi");\nif (a) {\n\treturn "y";\n}\n');
    expect(out.details?.repairs).toEqual(["old_string and new_string were JSON-unescaped"]);
    expect(text(out)).toContain("Note: old_string and new_string were JSON-unescaped.");

    await fx.call(fx.kit.readFile, { path: "b.js" });
    const twice = await fx.fail(fx.kit.editFile, {
      path: "b.js",
      old_string: 'say(\\"a\\");',
      new_string: 'say(\\"b\\");',
      replace_all: true,
    });
    expect(twice.kind).toBe("InvalidInput");
    expect(twice.message).toContain("it matches 2 places, so it was not applied");
    expect(await readFile(join(fx.dir, "b.js"), "utf8")).toBe('say("a");\nsay("a");\n');
  });

  it("round-trips a CRLF file byte for byte, giving added lines CRLF too", async () => {
    const fx = await fixture();
    const original = Buffer.from("first\r\nsecond\r\nthird\r\n");
    await fx.files({ "win.txt": original });
    await readThenEdit(fx, "win.txt", { old_string: "first\nsecond", new_string: "first\nmiddle\nsecond" });
    expect((await bytesOf(fx, "win.txt")).toString("latin1")).toBe("first\r\nmiddle\r\nsecond\r\nthird\r\n");
    await fx.call(fx.kit.editFile, { path: "win.txt", old_string: "middle\r\n", new_string: "" });
    expect(await bytesOf(fx, "win.txt")).toEqual(original);
  });

  it("round-trips a non-UTF-8 (Latin-1) file byte for byte", async () => {
    const fx = await fixture();
    // "Caf\xe9 cr\xe8me\n\xa9 2024\n" in ISO-8859-1: not valid UTF-8.
    const original = Buffer.from([
      0x43, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65, 0x0a, 0xa9, 0x20, 0x32, 0x30, 0x32, 0x34,
      0x0a,
    ]);
    await fx.files({ "old.txt": original });
    await readThenEdit(fx, "old.txt", { old_string: "2024", new_string: "2025" });
    const expected = Buffer.from(original);
    expected[17 - 1] = 0x35;
    expect(await bytesOf(fx, "old.txt")).toEqual(expected);
    await fx.call(fx.kit.editFile, { path: "old.txt", old_string: "crème", new_string: "crèmes" });
    expect((await bytesOf(fx, "old.txt")).subarray(0, 11)).toEqual(
      Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65, 0x73]),
    );
    const emoji = await fx.fail(fx.kit.editFile, {
      path: "old.txt",
      old_string: "2025",
      new_string: "2025 🎉",
    });
    expect(emoji.kind).toBe("InvalidInput");
    expect(emoji.message).toContain("not UTF-8");
  });

  it("leaves every other byte of a mixed file (UTF-8, a stray byte, CR, CRLF and LF) as it was", async () => {
    const fx = await fixture();
    const lines = [
      Buffer.from("caf\u00e9 \u2192 \u{1f389}\r\n"),
      Buffer.from([0x62, 0x61, 0x64, 0x20, 0xc3, 0x28, 0xff, 0x0a]),
      Buffer.from("line three\n"),
      Buffer.from([0x6f, 0x6c, 0x64, 0x0d, 0x6d, 0x61, 0x63, 0xe9, 0x0d, 0x0a]),
      Buffer.from([0xed, 0xa0, 0x80, 0x65, 0x6e, 0x64]),
    ];
    await fx.files({ "mixed.txt": Buffer.concat(lines) });
    await readThenEdit(fx, "mixed.txt", { old_string: "line three", new_string: "line 3" });
    const expected = Buffer.concat([
      lines[0],
      lines[1],
      Buffer.from("line 3\n"),
      lines[3],
      lines[4],
    ] as Buffer[]);
    expect((await bytesOf(fx, "mixed.txt")).toString("hex")).toBe(expected.toString("hex"));
  });

  it("keeps a BOM, the final newline, and the file's mode", async () => {
    const fx = await fixture();
    await fx.files({
      "bom.cs": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("class A {}\nclass B {}\n")]),
    });
    await chmod(join(fx.dir, "bom.cs"), 0o751);
    await readThenEdit(fx, "bom.cs", { old_string: "class B {}\n", new_string: "class C {}" });
    const bytes = await bytesOf(fx, "bom.cs");
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8")).toBe("class A {}\nclass C {}\n");
    expect((await stat(join(fx.dir, "bom.cs"))).mode & 0o777).toBe(0o751);
  });

  it("refuses a file not read in this run, or changed on disk since (Conflict)", async () => {
    const fx = await fixture();
    await fx.files({ "a.txt": "alpha\nbeta\n" });
    const unread = await fx.fail(fx.kit.editFile, { path: "a.txt", old_string: "beta", new_string: "gamma" });
    expect(unread.kind).toBe("Conflict");
    expect(unread.message).toContain("has not been read in this run");

    await fx.call(fx.kit.readFile, { path: "a.txt" });
    // Same size, written right away: only the content tells the change apart.
    await writeFile(join(fx.dir, "a.txt"), "ALPHA\nbeta\n");
    const changed = await fx.fail(fx.kit.editFile, {
      path: "a.txt",
      old_string: "beta",
      new_string: "gamma",
    });
    expect(changed.kind).toBe("Conflict");
    expect(changed.message).toContain("changed on disk since this run last read it");
    expect(await readFile(join(fx.dir, "a.txt"), "utf8")).toBe("ALPHA\nbeta\n");

    // Another run's read does not count for this one.
    await fx.call(fx.kit.readFile, { path: "a.txt" }, "run-2");
    const other = await fx.fail(
      fx.kit.editFile,
      { path: "a.txt", old_string: "beta", new_string: "gamma" },
      "run-3",
    );
    expect(other.kind).toBe("Conflict");
    await fx.call(fx.kit.editFile, { path: "a.txt", old_string: "beta", new_string: "gamma" }, "run-2");
    // Its own write keeps the run's view current: a second edit needs no new read.
    await fx.call(fx.kit.editFile, { path: "a.txt", old_string: "gamma", new_string: "delta" }, "run-2");
    expect(await readFile(join(fx.dir, "a.txt"), "utf8")).toBe("ALPHA\ndelta\n");
  });

  it("serializes racing edits: one run's two edits both land, a stale run's edit is refused", async () => {
    const fx = await fixture();
    const lines = Array.from({ length: 20 }, (_, i) => `item ${i}`);
    await fx.files({ "list.txt": `${lines.join("\n")}\n` });
    await fx.call(fx.kit.readFile, { path: "list.txt" });
    await fx.call(fx.kit.readFile, { path: "list.txt" }, "other-run");
    const results = await Promise.allSettled([
      ...lines.map((line) =>
        fx.call(fx.kit.editFile, { path: "list.txt", old_string: `${line}\n`, new_string: `${line} done\n` }),
      ),
      fx.call(
        fx.kit.editFile,
        { path: "list.txt", old_string: "item 5\n", new_string: "stale\n" },
        "other-run",
      ),
    ]);
    expect(results.slice(0, 20).every((result) => result.status === "fulfilled")).toBe(true);
    const stale = results[20];
    expect(stale?.status === "rejected" && (stale.reason as { kind: string }).kind).toBe("Conflict");
    expect(await readFile(join(fx.dir, "list.txt"), "utf8")).toBe(
      `${lines.map((l) => `${l} done`).join("\n")}\n`,
    );
  });

  it("refuses binary files and folders", async () => {
    const fx = await fixture();
    await fx.files({ "a.bin": Buffer.from([1, 0, 2, 0]), "dir/x": "" });
    await fx.call(fx.kit.readFile, { path: "a.bin" });
    expect(
      (await fx.fail(fx.kit.editFile, { path: "a.bin", old_string: "\u0001", new_string: "x" })).message,
    ).toContain("binary");
    expect((await fx.fail(fx.kit.editFile, { path: "dir", old_string: "a", new_string: "b" })).kind).toBe(
      "InvalidInput",
    );
    const missing = await fx.fail(fx.kit.editFile, { path: "dir/y", old_string: "a", new_string: "b" });
    expect(missing.kind).toBe("NotFound");
    expect(missing.message).toContain("Did you mean: dir/x?");
  });

  it("is marked destructive and sequential", async () => {
    const fx = await fixture();
    expect(fx.kit.editFile.annotations).toEqual({ destructive: true, repeat_safe: true });
    expect(fx.kit.editFile.sequential).toBe(true);
  });
});
