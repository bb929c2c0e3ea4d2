import { chmod, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hash } from "blake3-wasm";
import { describe, expect, it } from "vitest";
import { lineTag } from "../src/index.js";
import { expectOk, hashlines, setup } from "./helpers.js";

function blake3Prefix(input: string): string {
  return (hash(input) as Buffer).toString("hex").slice(0, 8);
}

describe("lineTag", () => {
  it("is the first 8 hex characters of blake3 of `<line number>:<text>`", () => {
    // Cross-checked against @noble/hashes' independent blake3 when the package was written.
    expect(lineTag(1, "fn main() {")).toBe("a423185e");
    expect(lineTag(42, "  return x;")).toBe(blake3Prefix("42:  return x;"));
    expect(lineTag(7, "naïve — ✓")).toBe(blake3Prefix("7:naïve — ✓"));
  });

  it("differs for the same text on different lines", () => {
    expect(lineTag(1, "}")).not.toBe(lineTag(2, "}"));
  });
});

describe("read_file", () => {
  it("shows every line as `<number right-aligned to 4> <tag> | <text>`", async () => {
    const t = await setup();
    await writeFile(join(t.dir, "main.rs"), 'fn main() {\n    println!("hello");\n}\n');
    const text = expectOk(await t.read({ path: "main.rs" }));
    expect(text).toBe(
      [
        `   1 ${lineTag(1, "fn main() {")} | fn main() {`,
        `   2 ${lineTag(2, '    println!("hello");')} |     println!("hello");`,
        `   3 ${lineTag(3, "}")} | }`,
      ].join("\n"),
    );
  });

  it("pages with offset and limit and says how to continue", async () => {
    const t = await setup();
    const lines = Array.from({ length: 2_500 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(t.dir, "big.txt"), `${lines.join("\n")}\n`);

    const first = await t.read({ path: "big.txt" });
    const firstText = expectOk(first);
    expect(hashlines(firstText).size).toBe(2_000);
    expect(firstText).toContain("[lines 1-2000 of 2500 shown; call read_file with offset=2001 to continue]");
    expect(first.ok && first.details).toMatchObject({ truncated: true, nextOffset: 2001, totalLines: 2500 });

    const page = expectOk(await t.read({ path: "big.txt", offset: 2_400, limit: 5 }));
    expect([...hashlines(page).values()].map((l) => [l.line, l.text])).toEqual([
      [2400, "line 2400"],
      [2401, "line 2401"],
      [2402, "line 2402"],
      [2403, "line 2403"],
      [2404, "line 2404"],
    ]);
    expect(hashlines(page).get(2400)?.tag).toBe(lineTag(2400, "line 2400"));

    const last = expectOk(await t.read({ path: "big.txt", offset: 2_499 }));
    expect(last).toContain("[lines 2499-2500 of 2500 shown; end of file]");

    const past = await t.read({ path: "big.txt", offset: 2_501 });
    expect(past).toMatchObject({ ok: false, kind: "InvalidInput" });
    expect(past.text).toContain("has 2500 lines");
  });

  it("cuts over-long lines but tags the whole line", async () => {
    const t = await setup({ maxLineChars: 50 });
    const long = "x".repeat(500);
    await writeFile(join(t.dir, "long.txt"), `short\n${long}\n`);
    const text = expectOk(await t.read({ path: "long.txt" }));
    const row = hashlines(text).get(2);
    expect(row?.tag).toBe(lineTag(2, long));
    expect(row?.text).toBe(`${"x".repeat(50)}… [line cut: 500 chars]`);
    expect(text).toContain("1 long line was cut");
  });

  it("stops a page early when the output grows too large", async () => {
    const t = await setup({ maxOutputChars: 1_000 });
    await writeFile(
      join(t.dir, "wide.txt"),
      `${Array.from({ length: 100 }, () => "y".repeat(80)).join("\n")}\n`,
    );
    const result = await t.read({ path: "wide.txt" });
    const text = expectOk(result);
    expect(text.length).toBeLessThan(1_200);
    const shown = hashlines(text).size;
    expect(text).toContain(`call read_file with offset=${shown + 1} to continue`);
  });

  it("answers clearly for a directory, a binary file, a missing file and an empty file", async () => {
    const t = await setup();
    await mkdir(join(t.dir, "src"));
    await writeFile(join(t.dir, "blob.bin"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await writeFile(join(t.dir, "empty.txt"), "");

    expect(await t.read({ path: "src" })).toMatchObject({ ok: false, kind: "InvalidInput" });
    const binary = await t.read({ path: "blob.bin" });
    expect(binary).toMatchObject({ ok: false, kind: "InvalidInput" });
    expect(binary.text).toContain("binary");
    expect(await t.read({ path: "nope.txt" })).toMatchObject({ ok: false, kind: "NotFound" });
    const empty = expectOk(await t.read({ path: "empty.txt" }));
    expect(empty).toBe(`   1 ${lineTag(1, "")} | \n[empty file: replace line 1 to give it content]`);
  });

  it("refuses paths outside the workspace, through symlinks, and secret-like files", async () => {
    const t = await setup();
    const outside = `${t.dir}-evil`;
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, "x.txt"), "secret\n");
    await symlink(join(outside, "x.txt"), join(t.dir, "link.txt"));
    await writeFile(join(t.dir, ".env"), "TOKEN=1\n");
    await writeFile(join(t.dir, "ok.txt"), "fine\n");
    await chmod(join(t.dir, "ok.txt"), 0o644);

    for (const path of ["../x.txt", `${outside}/x.txt`, "link.txt", ".env"]) {
      expect(await t.read({ path }), path).toMatchObject({ ok: false, kind: "Denied" });
    }
    expect(await t.read({ path: "ok\0.txt" })).toMatchObject({ ok: false, kind: "InvalidInput" });
    expect(await t.read({ path: "ok.txt", limit: 0 })).toMatchObject({ ok: false, kind: "InvalidInput" });
    await rm(outside, { recursive: true, force: true });
  });
});
