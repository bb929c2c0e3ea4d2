import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectOk, setup } from "./helpers.js";
import { random } from "./random.js";

// Byte-level line content of every kind a real file holds: ASCII, Latin-1 bytes, valid UTF-8 of each
// length, and the invalid UTF-8 families (lone continuation, truncated sequence, overlong form, encoded
// surrogate, bytes never valid), plus a carriage return inside a line. Never 0x0A (a line break) or 0x00
// (binary).
const PIECES: readonly (readonly number[])[] = [
  [0x61, 0x62, 0x63],
  [0x20, 0x7b, 0x7d, 0x3b],
  [0xe9],
  [0xfc, 0x6e],
  [0xa0, 0xff],
  [0xc3, 0xa9],
  [0xe2, 0x86, 0x92],
  [0xf0, 0x9f, 0x8e, 0x89],
  [0x80],
  [0xc3],
  [0xe2, 0x86],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xfe],
  [0x0d, 0x61],
];
const UTF8_ONLY = [0, 1, 5, 6, 7];
const ENDINGS = [[0x0a], [0x0d, 0x0a]];

interface Sample {
  readonly lines: Buffer[];
  readonly endings: Buffer[];
  readonly bytes: Buffer;
}

/** A file of 3 to 8 lines; `utf8Only` keeps it valid UTF-8, otherwise anything goes (mixed files too). */
function sample(next: () => number, utf8Only: boolean): Sample {
  const count = 3 + Math.floor(next() * 6);
  const lines: Buffer[] = [];
  const endings: Buffer[] = [];
  const pick = <T>(from: readonly T[]) => from[Math.floor(next() * from.length)] as T;
  for (let i = 0; i < count; i++) {
    const parts: number[] = [];
    for (let p = Math.floor(next() * 4); p > 0; p--) {
      parts.push(...(PIECES[utf8Only ? pick(UTF8_ONLY) : Math.floor(next() * PIECES.length)] as number[]));
    }
    lines.push(Buffer.from(parts));
    // The last line may have no line break at all.
    endings.push(i === count - 1 && next() < 0.3 ? Buffer.alloc(0) : Buffer.from(pick(ENDINGS)));
  }
  // A UTF-8 BOM in front now and then: kept as a BOM in a UTF-8 file, as bytes of line 1 otherwise.
  if (next() < 0.25) lines[0] = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), lines[0] as Buffer]);
  return { lines, endings, bytes: assemble(lines, endings) };
}

function assemble(lines: readonly Buffer[], endings: readonly Buffer[]): Buffer {
  return Buffer.concat(lines.flatMap((line, i) => [line, endings[i] as Buffer]));
}

describe("untouched lines keep their bytes, whatever the encoding", () => {
  it("replaces, deletes or inserts at one line of 300 generated files and leaves every other byte alone", async () => {
    const t = await setup();
    const file = join(t.dir, "f.txt");
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const { lines, endings, bytes } = sample(next, seed % 3 === 0);
      // A middle line: its neighbours on both sides must survive untouched.
      const target = 1 + Math.floor(next() * (lines.length - 2));
      await writeFile(file, bytes);
      const read = expectOk(await t.read({ path: "f.txt" }, `run-${seed}`));
      // Lines may hold a bare CR, which the shared hashline parser (one row per `.*`) does not allow for.
      const tag = new RegExp(`^ *${target + 1} ([0-9a-f]{8}) \\|`, "m").exec(read)?.[1];
      expect(tag, read).toBeDefined();
      const op = seed % 3;
      const edit =
        op === 0
          ? { op: "replace_line", tag, new_text: "EDITED" }
          : op === 1
            ? { op: "delete_line", tag }
            : { op: "insert_after", tag, new_text: "INSERTED" };
      expectOk(await t.edit({ path: "f.txt", edits: [edit] }, `run-${seed}`));
      const after = await readFile(file);

      // An inserted line takes the file's usual line ending (CRLF only when most lines use it).
      const crlf = endings.filter((e) => e.length === 2).length;
      const eol = Buffer.from(crlf > endings.filter((e) => e.length === 1).length ? "\r\n" : "\n");
      const expected =
        op === 0
          ? assemble(
              lines.map((line, i) => (i === target ? Buffer.from("EDITED") : line)),
              endings,
            )
          : op === 1
            ? assemble(
                lines.filter((_, i) => i !== target),
                endings.filter((_, i) => i !== target),
              )
            : assemble(
                [...lines.slice(0, target + 1), Buffer.from("INSERTED"), ...lines.slice(target + 1)],
                [...endings.slice(0, target + 1), eol, ...endings.slice(target + 1)],
              );
      expect({ seed, after: after.toString("hex") }).toEqual({
        seed,
        expected: undefined,
        after: expected.toString("hex"),
      });
    }
  });
});
