// Hashline edits name lines by tags (`replace_line 3f2a9c01`), not by their old text, so the diff needs
// what the tags stood for. The session shows it: each read (and each edit's result) lists lines as
// `  12 3f2a9c01 | text`. The projection remembers those per file, in order, and an edit's diff is drawn
// from them. A tag the session never showed is named as such rather than guessed.
import type { EditView } from "./view.js";

const HASHLINE = /^ *(\d+) ([0-9a-f]{8}) \| (.*)$/;
// A line the read cut short: its tag still names the whole line, which the session never showed.
const CUT = /… \[line cut: \d+ chars\]$/;
// What a model may send instead of a bare tag: the hashline's prefix, with or without its text.
const TAG = /([0-9a-fA-F]{8})/;

type Json = Record<string, unknown>;

interface ShownLine {
  readonly line: number;
  readonly text: string;
}

/** The lines each file's reads and edits showed, by tag. */
export class ShownLines {
  readonly #files = new Map<string, Map<string, ShownLine>>();

  /** Takes in a tool result's text: any hashlines in it are what those tags stand for in `path`. */
  saw(path: string, text: string): void {
    if (!path || !text.includes(" | ")) return;
    let tags = this.#files.get(path);
    for (const row of text.split("\n")) {
      const match = HASHLINE.exec(row);
      if (!match) continue;
      const [, line, tag, content] = match as unknown as [string, string, string, string];
      if (CUT.test(content)) continue;
      tags ??= new Map();
      tags.set(tag, { line: Number(line), text: content });
    }
    if (tags) this.#files.set(path, tags);
  }

  lookup(path: string, tag: unknown): ShownLine | undefined {
    const bare = typeof tag === "string" ? TAG.exec(tag)?.[1]?.toLowerCase() : undefined;
    return bare ? this.#files.get(path)?.get(bare) : undefined;
  }

  /** Lines `from`..`to` of `path` as shown, when every one of them was. */
  range(path: string, from: number, to: number): string[] | undefined {
    const tags = this.#files.get(path);
    if (!tags || to < from) return undefined;
    const byLine = new Map<number, string>();
    for (const shown of tags.values()) byLine.set(shown.line, shown.text);
    const out: string[] = [];
    for (let n = from; n <= to; n++) {
      const text = byLine.get(n);
      if (text === undefined) return undefined;
      out.push(text);
    }
    return out;
  }
}

const unknownLine = (tag: unknown) => `⟨line ${String(tag)}: not shown in this session⟩`;

/** A hashline edit call's diff, or undefined when `args` is not one (no `edits` of `op`s). */
export function hashlineEditOf(args: Json, path: string, shown: ShownLines): EditView | undefined {
  const edits = args.edits;
  if (!Array.isArray(edits) || edits.length === 0) return undefined;
  if (!edits.every((e) => e !== null && typeof e === "object" && typeof (e as Json).op === "string")) {
    return undefined;
  }
  const hunks = (edits as Json[]).map((edit) => {
    const added = typeof edit.new_text === "string" ? edit.new_text.replace(/\n$/, "") : "";
    if (edit.op === "replace_range") {
      const start = shown.lookup(path, edit.start_tag);
      const end = shown.lookup(path, edit.end_tag);
      const old = start && end ? shown.range(path, start.line, end.line) : undefined;
      return {
        ...(start ? { line: start.line } : {}),
        old: old ? old.join("\n") : `${unknownLine(edit.start_tag)}\n…\n${unknownLine(edit.end_tag)}`,
        new: added,
      };
    }
    const at = shown.lookup(path, edit.tag);
    const old = at ? at.text : unknownLine(edit.tag);
    const line = at ? { line: at.line } : {};
    if (edit.op === "delete_line") return { ...line, old, new: "" };
    if (edit.op === "insert_after") return { ...line, old, new: `${old}\n${added}` };
    return { ...line, old, new: added };
  });
  return { kind: "replace", path, hunks };
}
