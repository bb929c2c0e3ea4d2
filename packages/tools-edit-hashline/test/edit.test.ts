import { chmod, lstat, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineTag } from "../src/index.js";
import { expectOk, hashlines, setup, tagOf } from "./helpers.js";

const SOURCE = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];

async function fixture(options = {}) {
  const t = await setup(options);
  const file = join(t.dir, "a.txt");
  await writeFile(file, `${SOURCE.join("\n")}\n`);
  const firstRead = expectOk(await t.read({ path: "a.txt" }));
  const tag = (line: number) => tagOf(firstRead, line);
  const content = () => readFile(file, "utf8");
  return { ...t, file, tag, content };
}

describe("edit_file", () => {
  it("applies all four operations in one call, against the file as it was read", async () => {
    const f = await fixture();
    const result = await f.edit({
      path: "a.txt",
      edits: [
        { op: "replace_line", tag: f.tag(1), new_text: "ALPHA" },
        { op: "insert_after", tag: f.tag(2), new_text: "beta.1\nbeta.2" },
        { op: "delete_line", tag: f.tag(4) },
        { op: "replace_range", start_tag: f.tag(5), end_tag: f.tag(6), new_text: "EPS-ZETA" },
      ],
    });
    const text = expectOk(result);
    expect(await f.content()).toBe("ALPHA\nbeta\nbeta.1\nbeta.2\ngamma\nEPS-ZETA\neta\n");
    expect(text).toContain("4 edits applied, 4 lines removed, 4 added; the file now has 7 lines");
    // Every line the result shows carries the tag it has now.
    const now = (await f.content()).split("\n");
    for (const row of hashlines(text).values()) {
      expect(row.tag).toBe(lineTag(row.line, now[row.line - 1] as string));
    }
  });

  it("takes multi-line new_text, CRLF inside it, and ignores one trailing newline", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          { op: "replace_line", tag: f.tag(2), new_text: "b1\r\nb2\nb3\n" },
          { op: "insert_after", tag: f.tag(7), new_text: "" },
        ],
      }),
    );
    expect(await f.content()).toBe("alpha\nb1\nb2\nb3\ngamma\ndelta\nepsilon\nzeta\neta\n\n");
  });

  it("lets the model chain edits with the fresh tags a result shows, without reading again", async () => {
    const f = await fixture();
    const first = expectOk(
      await f.edit({ path: "a.txt", edits: [{ op: "insert_after", tag: f.tag(1), new_text: "one\ntwo" }] }),
    );
    // beta moved from line 2 to line 4; the result shows it with its new tag.
    const beta = hashlines(first).get(4);
    expect(beta?.text).toBe("beta");
    expectOk(
      await f.edit({ path: "a.txt", edits: [{ op: "replace_line", tag: beta?.tag, new_text: "BETA" }] }),
    );
    expect(await f.content()).toBe("alpha\none\ntwo\nBETA\ngamma\ndelta\nepsilon\nzeta\neta\n");
  });

  it("rejects a stale tag whole, writes nothing, and shows where the line went with fresh tags", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({ path: "a.txt", edits: [{ op: "insert_after", tag: f.tag(1), new_text: "new" }] }),
    );
    const before = await f.content();
    // Both tags come from the first read; gamma (line 3) is now line 4.
    const result = await f.edit({
      path: "a.txt",
      edits: [
        { op: "replace_line", tag: f.tag(1), new_text: "A" },
        { op: "replace_line", tag: f.tag(3), new_text: "G" },
      ],
    });
    expect(result).toMatchObject({ ok: false, kind: "Conflict" });
    expect(await f.content()).toBe(before);
    expect(result.text).toContain(
      `${f.tag(3)} (line 3) is stale: that line is now line 4, tag ${lineTag(4, "gamma")}`,
    );
    const shown = hashlines(result.text);
    expect([...shown.keys()]).toEqual([2, 3, 4, 5, 6]);
    expect(shown.get(4)).toEqual({ line: 4, tag: lineTag(4, "gamma"), text: "gamma" });

    // The retry uses only what the error showed.
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          { op: "replace_line", tag: f.tag(1), new_text: "A" },
          { op: "replace_line", tag: shown.get(4)?.tag, new_text: "G" },
        ],
      }),
    );
    expect(await f.content()).toBe("A\nnew\nbeta\nG\ndelta\nepsilon\nzeta\neta\n");
  });

  it("says a changed line changed when its text is gone", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({ path: "a.txt", edits: [{ op: "replace_line", tag: f.tag(3), new_text: "GAMMA" }] }),
    );
    const result = await f.edit({ path: "a.txt", edits: [{ op: "delete_line", tag: f.tag(3) }] });
    expect(result).toMatchObject({ ok: false, kind: "Conflict" });
    expect(result.text).toContain(`${f.tag(3)} (line 3) is stale: line 3 has changed`);
    expect(hashlines(result.text).get(3)?.text).toBe("GAMMA");
  });

  it("rejects unknown and malformed tags as InvalidInput and writes nothing", async () => {
    const f = await fixture();
    const result = await f.edit({
      path: "a.txt",
      edits: [
        { op: "replace_line", tag: f.tag(1), new_text: "A" },
        { op: "delete_line", tag: "deadbeef" },
        { op: "delete_line", tag: "line 4" },
      ],
    });
    expect(result).toMatchObject({ ok: false, kind: "InvalidInput" });
    expect(result.text).toContain("deadbeef: no read of a.txt in this run showed this tag");
    expect(result.text).toContain('"line 4": not a tag');
    expect(await f.content()).toBe(`${SOURCE.join("\n")}\n`);
  });

  it("accepts a tag pasted with its line number or whole hashline", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          { op: "replace_line", tag: `2 ${f.tag(2)}`, new_text: "B" },
          { op: "replace_line", tag: `   3 ${f.tag(3)} | gamma`, new_text: "C" },
        ],
      }),
    );
    expect(await f.content()).toBe("alpha\nB\nC\ndelta\nepsilon\nzeta\neta\n");
  });

  it("strips hashline prefixes pasted into new_text, and says so", async () => {
    const f = await fixture();
    const result = expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          { op: "replace_line", tag: f.tag(2), new_text: `   2 ${f.tag(2)} | BETA\n   3 ${f.tag(3)} | more` },
        ],
      }),
    );
    expect(await f.content()).toBe("alpha\nBETA\nmore\ngamma\ndelta\nepsilon\nzeta\neta\n");
    expect(result).toContain("removed the");
  });

  it("refuses overlapping edits and backwards ranges, writing nothing", async () => {
    const f = await fixture();
    const original = await f.content();
    const cases = [
      [
        { op: "replace_line", tag: f.tag(2), new_text: "x" },
        { op: "delete_line", tag: f.tag(2) },
      ],
      [
        { op: "replace_range", start_tag: f.tag(2), end_tag: f.tag(5), new_text: "x" },
        { op: "replace_line", tag: f.tag(4), new_text: "y" },
      ],
      [
        { op: "replace_range", start_tag: f.tag(2), end_tag: f.tag(5), new_text: "x" },
        { op: "insert_after", tag: f.tag(3), new_text: "y" },
      ],
      [{ op: "replace_range", start_tag: f.tag(5), end_tag: f.tag(2), new_text: "x" }],
    ];
    for (const edits of cases) {
      const result = await f.edit({ path: "a.txt", edits });
      expect(result, JSON.stringify(edits)).toMatchObject({ ok: false, kind: "InvalidInput" });
    }
    expect(await f.content()).toBe(original);
  });

  it("allows inserting after a line that another edit replaces, and several inserts in call order", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [
          { op: "insert_after", tag: f.tag(2), new_text: "after-1" },
          { op: "replace_line", tag: f.tag(2), new_text: "B" },
          { op: "insert_after", tag: f.tag(2), new_text: "after-2" },
          { op: "replace_range", start_tag: f.tag(4), end_tag: f.tag(6), new_text: "" },
          { op: "insert_after", tag: f.tag(6), new_text: "after-range" },
        ],
      }),
    );
    expect(await f.content()).toBe("alpha\nB\nafter-1\nafter-2\ngamma\nafter-range\neta\n");
  });

  it("refuses a file that was never read in this run", async () => {
    const f = await fixture();
    await writeFile(join(f.dir, "b.txt"), "one\n");
    const never = await f.edit({ path: "b.txt", edits: [{ op: "delete_line", tag: lineTag(1, "one") }] });
    expect(never).toMatchObject({ ok: false, kind: "Conflict" });
    expect(never.text).toContain("has not been read in this run");
    // A read in another run does not count for this one.
    const otherRun = await f.edit({ path: "a.txt", edits: [{ op: "delete_line", tag: f.tag(1) }] }, "run-2");
    expect(otherRun).toMatchObject({ ok: false, kind: "Conflict" });
    expect(await readFile(join(f.dir, "b.txt"), "utf8")).toBe("one\n");
    expect(await f.content()).toBe(`${SOURCE.join("\n")}\n`);
  });

  it("refuses when the file changed on disk after the read, then accepts the tags its error showed", async () => {
    const f = await fixture();
    // Someone else changes a line the model is not editing: same line count, same tags elsewhere.
    await writeFile(f.file, `${SOURCE.join("\n").replace("zeta", "ZETA (theirs)")}\n`);
    const result = await f.edit({
      path: "a.txt",
      edits: [{ op: "replace_line", tag: f.tag(2), new_text: "mine" }],
    });
    expect(result).toMatchObject({ ok: false, kind: "Conflict" });
    expect(result.text).toContain("changed on disk since you last read it");
    expect(await f.content()).toContain("ZETA (theirs)");
    expect(hashlines(result.text).get(2)?.tag).toBe(f.tag(2));

    expectOk(
      await f.edit({ path: "a.txt", edits: [{ op: "replace_line", tag: f.tag(2), new_text: "mine" }] }),
    );
    expect(await f.content()).toBe("alpha\nmine\ngamma\ndelta\nepsilon\nZETA (theirs)\neta\n");
  });

  it("keeps the file's mode, writes through a symlink, and leaves no temp file", async () => {
    const f = await fixture();
    await chmod(f.file, 0o754);
    await symlink("a.txt", join(f.dir, "link.txt"));
    const viaLink = expectOk(await f.read({ path: "link.txt" }));
    expectOk(await f.edit({ path: "link.txt", edits: [{ op: "delete_line", tag: tagOf(viaLink, 1) }] }));
    expect((await stat(f.file)).mode & 0o777).toBe(0o754);
    expect((await lstat(join(f.dir, "link.txt"))).isSymbolicLink()).toBe(true);
    expect(await f.content()).toBe("beta\ngamma\ndelta\nepsilon\nzeta\neta\n");
    expect((await readdir(f.dir)).sort()).toEqual(["a.txt", "link.txt"]);
  });

  it("can empty a file and fill it again", async () => {
    const f = await fixture();
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [{ op: "replace_range", start_tag: f.tag(1), end_tag: f.tag(7), new_text: "" }],
      }),
    );
    expect(await f.content()).toBe("");
    const empty = expectOk(await f.read({ path: "a.txt" }));
    expectOk(
      await f.edit({
        path: "a.txt",
        edits: [{ op: "replace_line", tag: tagOf(empty, 1), new_text: "fresh" }],
      }),
    );
    expect(await f.content()).toBe("fresh\n");
  });

  it("refuses bad arguments through the schema and secret or escaping paths through the workspace", async () => {
    const f = await fixture();
    expect(await f.edit({ path: "a.txt", edits: [] })).toMatchObject({ ok: false, kind: "InvalidInput" });
    expect(await f.edit({ path: "a.txt", edits: [{ op: "replace_line", tag: f.tag(1) }] })).toMatchObject({
      ok: false,
      kind: "InvalidInput",
    });
    expect(await f.edit({ path: "a.txt", edits: [{ op: "swap_lines", tag: f.tag(1) }] })).toMatchObject({
      ok: false,
      kind: "InvalidInput",
    });
    await writeFile(join(f.dir, ".env"), "A=1\n");
    expect(
      await f.edit({ path: ".env", edits: [{ op: "delete_line", tag: lineTag(1, "A=1") }] }),
    ).toMatchObject({ ok: false, kind: "Denied" });
    expect(await f.edit({ path: "../a.txt", edits: [{ op: "delete_line", tag: f.tag(1) }] })).toMatchObject({
      ok: false,
      kind: "Denied",
    });
  });

  it("keeps a stale-tag error within core's bound when many tags are stale", async () => {
    const t = await setup();
    const lines = Array.from({ length: 300 }, (_, i) => `const v${i} = ${i}; // ${"pad ".repeat(20)}`);
    await writeFile(join(t.dir, "many.ts"), `${lines.join("\n")}\n`);
    const read = expectOk(await t.read({ path: "many.ts" }));
    expectOk(
      await t.edit({
        path: "many.ts",
        edits: [{ op: "insert_after", tag: tagOf(read, 1), new_text: "// new" }],
      }),
    );
    const edits = Array.from({ length: 100 }, (_, i) => ({ op: "delete_line", tag: tagOf(read, 3 * i + 2) }));
    const result = await t.edit({ path: "many.ts", edits });
    expect(result).toMatchObject({ ok: false, kind: "Conflict" });
    expect(result.text.length).toBeLessThan(1_990);
    expect(result.text).toContain("…and 85 more");
    expect(result.text).toContain("[more: read_file with offset=");
  });
});
