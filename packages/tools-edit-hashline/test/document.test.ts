import { describe, expect, it } from "vitest";
import { applyChanges, planEdits } from "../src/apply-edits.js";
import { type Line, parseDocument, serializeDocument, type TextDocument } from "../src/document.js";
import type { HashlineEdit } from "../src/edit-schema.js";
import { lineTag } from "../src/tag.js";

// A small deterministic generator, so a failure names a seed that reproduces it.
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

const PIECES = ["a", "bc", " ", "é", "🎉", "\r", "\n", "\r\n", "\t", "x = 1;"];

function randomFile(next: (n: number) => number): Buffer {
  const parts: Buffer[] = [];
  if (next(5) === 0) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const count = next(30);
  for (let i = 0; i < count; i++) {
    if (next(12) === 0) parts.push(Buffer.from([0xe9 + next(20)]));
    else parts.push(Buffer.from(PIECES[next(PIECES.length)] as string));
  }
  return Buffer.concat(parts);
}

/** What the bytes must be: every line re-encoded in full, the straightforward way. */
function reference(doc: TextDocument, lines: readonly Line[]): Buffer {
  let text = "";
  lines.forEach((line, i) => {
    let eol: string = line.eol;
    if (i < lines.length - 1) eol ||= doc.eol;
    else if (doc.bytes.length === (doc.bom ? 3 : 0) && line.source !== undefined) eol = "";
    else eol = doc.finalNewline ? eol || doc.eol : "";
    text += line.text + eol;
  });
  const body = Buffer.from(text, doc.encoding);
  return doc.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

describe("document round trips", () => {
  it("gives back the same bytes for any file, untouched", () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const bytes = randomFile(random(seed));
      const doc = parseDocument(bytes);
      const back = serializeDocument(doc, doc.lines);
      expect(back.equals(bytes), `seed ${seed}: ${JSON.stringify(bytes.toString("latin1"))}`).toBe(true);
    }
  });

  it("writes the same bytes as a full re-encoding after random edits", () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const next = random(seed);
      const doc = parseDocument(randomFile(next));
      const texts = doc.lines.map((line) => line.text);
      const tag = (i: number) => lineTag(i + 1, texts[i] as string, doc.encoding);
      const index = new Map(texts.map((_, i) => [tag(i), i]));
      const used = new Set<number>();
      const edits: HashlineEdit[] = [];
      for (let k = 0; k < 3; k++) {
        const at = next(texts.length);
        const newText =
          doc.encoding === "utf8" ? ["", "n", "n1\nn2", "é\r\n"][next(4)] : ["", "m", "m1\nm2"][next(3)];
        const op = next(3);
        if (op === 0) edits.push({ op: "insert_after", tag: tag(at), new_text: newText as string });
        else if (!used.has(at)) {
          used.add(at);
          edits.push(
            op === 1
              ? { op: "replace_line", tag: tag(at), new_text: newText as string }
              : { op: "delete_line", tag: tag(at) },
          );
        }
      }
      if (index.size !== texts.length) continue; // two lines with one tag: not a case to fuzz
      const applied = applyChanges(doc, planEdits(edits, index, []));
      const got = serializeDocument(doc, applied.lines);
      expect(got.equals(reference(doc, applied.lines)), `seed ${seed}`).toBe(true);
    }
  });
});
