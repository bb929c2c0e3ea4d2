import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineTag } from "../src/index.js";
import { expectOk, hashlines, setup, tagOf } from "./helpers.js";

async function withFile(bytes: Buffer) {
  const t = await setup();
  const file = join(t.dir, "f.txt");
  await writeFile(file, bytes);
  const read = expectOk(await t.read({ path: "f.txt" }));
  return { ...t, file, first: read, bytes: () => readFile(file) };
}

describe("byte-for-byte round trips", () => {
  it("keeps CRLF endings, and gives new lines the file's CRLF", async () => {
    const f = await withFile(Buffer.from("one\r\ntwo\r\nthree\r\n"));
    expect([...hashlines(f.first).values()].map((l) => l.text)).toEqual(["one", "two", "three"]);
    expect(tagOf(f.first, 2)).toBe(lineTag(2, "two"));
    expectOk(
      await f.edit({
        path: "f.txt",
        edits: [{ op: "replace_line", tag: tagOf(f.first, 2), new_text: "2a\n2b" }],
      }),
    );
    expect((await f.bytes()).toString("latin1")).toBe("one\r\n2a\r\n2b\r\nthree\r\n");
  });

  it("keeps mixed endings line by line, a BOM, and a missing final newline", async () => {
    const f = await withFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a\r\nb\nc\r\nd")]));
    expect(hashlines(f.first).get(1)?.text).toBe("a");
    expectOk(
      await f.edit({ path: "f.txt", edits: [{ op: "replace_line", tag: tagOf(f.first, 2), new_text: "B" }] }),
    );
    expect((await f.bytes()).toString("latin1")).toBe("\xef\xbb\xbfa\r\nB\nc\r\nd");
    const again = expectOk(await f.read({ path: "f.txt" }));
    expectOk(
      await f.edit({ path: "f.txt", edits: [{ op: "insert_after", tag: tagOf(again, 4), new_text: "e" }] }),
    );
    expect((await f.bytes()).toString("latin1")).toBe("\xef\xbb\xbfa\r\nB\nc\r\nd\r\ne");
  });

  it("leaves a file's other bytes alone when it is not UTF-8", async () => {
    // Latin-1 text with bytes that are invalid as UTF-8 (0xE9, 0xFC) and one stray 0xFF.
    const original = Buffer.from([
      ...Buffer.from("caf"),
      0xe9,
      0x0a,
      ...Buffer.from("gr"),
      0xfc,
      ...Buffer.from("n"),
      0x0a,
      0xff,
      ...Buffer.from("end"),
      0x0a,
    ]);
    const f = await withFile(original);
    expect(f.first).toContain("[not valid UTF-8");
    const rows = hashlines(f.first);
    expect(rows.get(1)?.text).toBe("café");
    // The tag is blake3 over the line's bytes as they are on disk.
    expect(rows.get(1)?.tag).toBe(lineTag(1, "café", "latin1"));
    expect(rows.get(1)?.tag).not.toBe(lineTag(1, "café"));

    expectOk(
      await f.edit({
        path: "f.txt",
        edits: [{ op: "replace_line", tag: tagOf(f.first, 2), new_text: "vert é" }],
      }),
    );
    const after = await f.bytes();
    expect(
      after.equals(
        Buffer.from([
          ...Buffer.from("caf"),
          0xe9,
          0x0a,
          ...Buffer.from("vert "),
          0xe9,
          0x0a,
          0xff,
          ...Buffer.from("end"),
          0x0a,
        ]),
      ),
    ).toBe(true);

    const again = expectOk(await f.read({ path: "f.txt" }));
    const refused = await f.edit({
      path: "f.txt",
      edits: [{ op: "replace_line", tag: tagOf(again, 3), new_text: "→ end" }],
    });
    expect(refused).toMatchObject({ ok: false, kind: "InvalidInput" });
    expect(refused.text).toContain("not UTF-8");
    expect((await f.bytes()).equals(after)).toBe(true);
  });

  it("writes nothing when the edit leaves the bytes as they were", async () => {
    const f = await withFile(Buffer.from("x\r\ny\r\n"));
    const before = await f.bytes();
    expectOk(
      await f.edit({ path: "f.txt", edits: [{ op: "replace_line", tag: tagOf(f.first, 1), new_text: "x" }] }),
    );
    expect((await f.bytes()).equals(before)).toBe(true);
  });

  it("round-trips UTF-8 beyond the BMP and a lone carriage return inside a line", async () => {
    const f = await withFile(Buffer.from("emoji 🎉\nold\rmac\nlast\n"));
    expect(hashlines(f.first).get(1)?.tag).toBe(lineTag(1, "emoji 🎉"));
    expectOk(
      await f.edit({
        path: "f.txt",
        edits: [{ op: "replace_line", tag: tagOf(f.first, 3), new_text: "née 🎈" }],
      }),
    );
    expect((await f.bytes()).toString("utf8")).toBe("emoji 🎉\nold\rmac\nnée 🎈\n");
  });
});
