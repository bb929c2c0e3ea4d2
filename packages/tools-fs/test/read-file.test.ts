import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReadFileDetails } from "../src/index.js";
import { fixture, text } from "./helpers.js";

const numbered = (count: number) =>
  `${Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("read_file", () => {
  it("numbers lines, pages 2,000 at a time and says how to continue", async () => {
    const fx = await fixture();
    await fx.files({ "big.txt": numbered(4_500) });
    const first = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "big.txt" });
    const lines = text(first).split("\n");
    expect(lines[0]).toBe("   1\tline 1");
    expect(lines[1999]).toBe("2000\tline 2000");
    expect(text(first)).toContain("[Showing lines 1-2000 of 4,500. Use offset=2001 to continue.]");
    expect(first.details).toMatchObject({ startLine: 1, endLine: 2000, totalLines: 4500, nextOffset: 2001 });

    const last = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "big.txt", offset: 4001 });
    expect(text(last).split("\n")[0]).toBe("4001\tline 4001");
    expect(last.details).toMatchObject({ startLine: 4001, endLine: 4500 });
    expect(last.details?.nextOffset).toBeUndefined();
    expect(text(last)).not.toContain("continue");

    const window = await fx.call(fx.kit.readFile, { path: "big.txt", offset: 10, limit: 2 });
    expect(text(window)).toBe(
      "10\tline 10\n11\tline 11\n\n[Showing lines 10-11 of 4,500. Use offset=12 to continue.]",
    );
  });

  it("cuts over-long lines with a marker, and bounds the whole answer", async () => {
    const fx = await fixture({ maxReadChars: 10_000 });
    await fx.files({
      "wide.txt": `short\n${"x".repeat(9_000)}\nafter\n${"y".repeat(1_500)}\n${"z".repeat(1_500)}\n`,
    });
    const out = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "wide.txt" });
    const lines = text(out).split("\n");
    expect(lines[1]).toBe(`2\t${"x".repeat(2_000)} … [line cut: 9,000 chars; offset=2 column=2001 reads on]`);
    expect(out.details?.cutLines).toBe(1);
    expect(out.details?.nextOffset).toBeUndefined();
    const small = await fixture({ maxReadChars: 3_000 });
    await small.files({ "wide.txt": `short\n${"x".repeat(9_000)}\nafter\n${"y".repeat(1_500)}\n` });
    const capped = await small.call<ReadFileDetails>(small.kit.readFile, { path: "wide.txt" });
    expect(capped.details).toMatchObject({ startLine: 1, endLine: 3, nextOffset: 4 });
    expect(text(capped)).toContain("Use offset=4 to continue.");
  });

  it("pages a 50 MB file without reading it whole", async () => {
    const fx = await fixture();
    const line = `${"a".repeat(36)} end\n`;
    const count = Math.ceil((50 * 1024 * 1024) / line.length);
    await writeFile(join(fx.dir, "huge.log"), Buffer.from(line.repeat(count)));
    const first = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "huge.log" });
    // 40 characters a line: the page ends at 50,000 characters of text, before 2,000 lines.
    expect(first.details).toMatchObject({ startLine: 1, endLine: 1250, nextOffset: 1251 });
    expect(first.details?.totalLines).toBeUndefined();
    expect(first.details?.scannedBytes).toBeLessThanOrEqual(512 * 1024);
    expect(text(first).length).toBeLessThan(250_000);
    expect(text(first)).toContain("Use offset=1251 to continue.");

    const deep = await fx.call<ReadFileDetails>(fx.kit.readFile, {
      path: "huge.log",
      offset: 300_000,
      limit: 3,
    });
    expect(text(deep).split("\n").slice(0, 3)).toEqual([
      `300000\t${line.trimEnd()}`,
      `300001\t${line.trimEnd()}`,
      `300002\t${line.trimEnd()}`,
    ]);
    expect(deep.details?.scannedBytes).toBeLessThan(300_003 * line.length + 256 * 1024 + 1);

    const end = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "huge.log", offset: count - 1 });
    expect(end.details).toMatchObject({ startLine: count - 1, endLine: count, totalLines: count });
  });

  it("keeps a single 50 MB line to the cut length", async () => {
    const fx = await fixture();
    await writeFile(join(fx.dir, "one-line.min.js"), Buffer.alloc(50 * 1024 * 1024, 0x61));
    const out = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "one-line.min.js" });
    expect(text(out)).toBe(
      `1\t${"a".repeat(2_000)} … [line cut: 52,428,800 chars; offset=1 column=2001 reads on]\n[1 line(s) longer than 2000 characters were cut.]`,
    );
  });

  it("answers for binary files, images and folders instead of dumping them", async () => {
    const fx = await fixture();
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201f6c9e8ab0000000049454e44ae426082",
      "hex",
    );
    await fx.files({ "tool.bin": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]), "dot.png": png });
    await mkdir(join(fx.dir, "src"));
    const binary = await fx.call<ReadFileDetails>(fx.kit.readFile, { path: "tool.bin" });
    expect(text(binary)).toBe(
      "tool.bin is a ELF executable (10 bytes, not text); read_file shows text files only.",
    );
    expect(binary.isError).toBeUndefined();
    const image = await fx.call(fx.kit.readFile, { path: "dot.png" });
    expect(image.content).toEqual([
      { type: "text", text: "dot.png is a PNG image (70 bytes), shown below." },
      { type: "image", mediaType: "image/png", data: png.toString("base64") },
    ]);
    const folder = await fx.fail(fx.kit.readFile, { path: "src" });
    expect(folder.kind).toBe("InvalidInput");
    expect(folder.message).toBe("src is a directory, not a file. Use list_dir to see what it holds.");
  });

  it("suggests close names for a missing file", async () => {
    const fx = await fixture();
    await fx.files({ "src/config.ts": "", "src/index.ts": "", "lib/deep/util.ts": "", "README.md": "" });
    const typo = await fx.fail(fx.kit.readFile, { path: "src/confg.ts" });
    expect(typo.kind).toBe("NotFound");
    expect(typo.message).toContain("Did you mean: src/config.ts?");
    const extension = await fx.fail(fx.kit.readFile, { path: "src/index.js" });
    expect(extension.message).toContain("src/index.ts");
    const elsewhere = await fx.fail(fx.kit.readFile, { path: "util.ts" });
    expect(elsewhere.message).toContain("lib/deep/util.ts");
    const caseOnly = await fx.fail(fx.kit.readFile, { path: "readme.md" });
    expect(caseOnly.message).toContain("README.md");
    const nothing = await fx.fail(fx.kit.readFile, { path: "zzzzzz/qqqq.rs" });
    expect(nothing.message).toBe("zzzzzz/qqqq.rs: no such file or directory");
  });

  it("handles empty files, offsets past the end, CRLF and non-UTF-8 text", async () => {
    const fx = await fixture();
    await fx.files({
      "empty.txt": "",
      "crlf.txt": "one\r\ntwo\r\n",
      "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      "bom.txt": Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0a]),
    });
    expect(text(await fx.call(fx.kit.readFile, { path: "empty.txt" }))).toBe("empty.txt is empty (0 lines).");
    const past = await fx.fail(fx.kit.readFile, { path: "crlf.txt", offset: 5 });
    expect(past.message).toBe(
      "offset 5 is past the end of crlf.txt, which has 2 lines. Use an offset from 1 to 2.",
    );
    expect(text(await fx.call(fx.kit.readFile, { path: "crlf.txt" }))).toBe("1\tone\n2\ttwo");
    expect(text(await fx.call(fx.kit.readFile, { path: "latin1.txt" }))).toBe("1\tcafé");
    expect(text(await fx.call(fx.kit.readFile, { path: "bom.txt" }))).toBe("1\thi");
  });

  it("rejects bad arguments through its schema", async () => {
    const fx = await fixture();
    expect(fx.kit.readFile.inputSchema.safeParse({ path: "a", offset: 0 }).success).toBe(false);
    expect(fx.kit.readFile.inputSchema.safeParse({ path: "a", limit: -1 }).success).toBe(false);
    expect(fx.kit.readFile.annotations).toEqual({ read_only: true, idempotent: true });
  });

  it("answers a FIFO (a file swapped for one, say) at once instead of waiting for a writer", async () => {
    const fx = await fixture();
    execFileSync("mkfifo", [join(fx.dir, "pipe")]);
    for (const tool of [fx.kit.readFile, fx.kit.editFile]) {
      const args =
        tool === fx.kit.readFile ? { path: "pipe" } : { path: "pipe", old_string: "a", new_string: "b" };
      const failure = await fx.fail(tool, args);
      expect(failure.kind).toBe("InvalidInput");
      expect(failure.message).toContain("not a regular file");
    }
  });
});
