import { describe, expect, it } from "vitest";
import { applyChanges, planEdits } from "../src/apply-edits.js";
import { EditedLines, type Eol, serializeDocument, TextDocument } from "../src/document.js";
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
function reference(lines: EditedLines): Buffer {
  const { doc } = lines;
  const endings: { eol: Eol; virtual: boolean }[] = [];
  for (const segment of lines.segments) {
    if (segment.kind === "new")
      for (const _ of segment.texts) endings.push({ eol: segment.eol, virtual: false });
    else
      for (let i = segment.from; i < segment.to; i++) endings.push({ eol: doc.eolOf(i), virtual: doc.empty });
  }
  let text = "";
  for (let i = 0; i < lines.count; i++) {
    const { eol: own, virtual } = endings[i] as { eol: Eol; virtual: boolean };
    let eol: string = own;
    if (i < lines.count - 1) eol ||= doc.eol;
    else if (virtual) eol = "";
    else eol = doc.finalNewline ? eol || doc.eol : "";
    text += lines.text(i) + eol;
  }
  const body = Buffer.from(text, doc.encoding);
  return doc.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

describe("document round trips", () => {
  it("gives back the same bytes for any file, untouched", () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const bytes = randomFile(random(seed));
      const doc = new TextDocument(bytes);
      const back = serializeDocument(new EditedLines(doc, [{ kind: "kept", from: 0, to: doc.count }]));
      expect(back.equals(bytes), `seed ${seed}: ${JSON.stringify(bytes.toString("latin1"))}`).toBe(true);
    }
  });

  it("writes the same bytes as a full re-encoding after random edits", () => {
    for (let seed = 1; seed <= 2_000; seed++) {
      const next = random(seed);
      const doc = new TextDocument(randomFile(next));
      const texts = Array.from({ length: doc.count }, (_, i) => doc.text(i));
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
      const applied = applyChanges(doc, planEdits(edits, index, [], { shown: new Map(), verbatim: false }));
      const got = serializeDocument(applied.lines);
      expect(got.equals(reference(applied.lines)), `seed ${seed}`).toBe(true);
      // The edited view reads the same lines the bytes hold.
      const reread = new TextDocument(got);
      // An empty last line in a file without a final newline has no bytes, so it cannot be read back.
      const last = applied.lines.count - 1;
      const unreadable = !doc.finalNewline && last >= 0 && applied.lines.text(last) === "" ? 1 : 0;
      for (let i = 0; i < applied.lines.count - unreadable; i++) {
        const line = applied.lines.text(i);
        // Removing the only invalid bytes makes a Latin-1 file UTF-8, which then reads differently.
        if (reread.encoding !== doc.encoding) break;
        // A line ending in a lone CR that gains a newline reads back as a CRLF line: a known edge.
        if (!line.endsWith("\r")) expect(reread.text(i), `seed ${seed} line ${i}`).toBe(line);
      }
    }
  });
});
