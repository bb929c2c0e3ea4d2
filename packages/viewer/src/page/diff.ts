// An edit drawn as a unified diff: jsdiff computes the hunks of a replacement; a V4A patch is already a
// diff and is drawn line by line; a whole-file write is all additions.
import { structuredPatch } from "diff";
import type { EditView } from "../view.js";
import { h } from "./dom.js";

const MAX_LINES = 2_000;

function line(kind: "add" | "del" | "ctx" | "hdr", text: string): HTMLElement {
  return h("div", { class: `dl ${kind}` }, text);
}

function fromPrefixed(lines: readonly string[]): HTMLElement[] {
  // jsdiff's "\ No newline at end of file" says nothing here: a replaced fragment rarely ends a line.
  return lines
    .filter((text) => !text.startsWith("\\"))
    .map((text) => {
      const mark = text[0];
      if (mark === "+") return line("add", text);
      if (mark === "-") return line("del", text);
      if (text.startsWith("@@") || text.startsWith("***")) return line("hdr", text);
      return line("ctx", text);
    });
}

function bounded(lines: HTMLElement[]): HTMLElement[] {
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), line("hdr", `… ${lines.length - MAX_LINES} more lines`)];
}

export function renderEdit(edit: EditView): HTMLElement {
  const out: HTMLElement[] = [];
  if (edit.kind === "patch") {
    out.push(...fromPrefixed(edit.text.split("\n")));
  } else if (edit.kind === "write") {
    out.push(line("hdr", `+++ ${edit.path} (whole file)`));
    out.push(...edit.content.split("\n").map((text) => line("add", `+${text}`)));
  } else {
    out.push(line("hdr", `--- ${edit.path}`), line("hdr", `+++ ${edit.path}`));
    for (const hunk of edit.hunks) {
      const patch = structuredPatch(edit.path, edit.path, hunk.old, hunk.new, undefined, undefined, {
        context: 3,
      });
      // The hunk's line in the file, when the tool reported it; else lines count from the replaced text.
      const offset = hunk.line === undefined ? 0 : hunk.line - 1;
      for (const part of patch.hunks) {
        out.push(
          line(
            "hdr",
            `@@ -${part.oldStart + offset},${part.oldLines} +${part.newStart + offset},${part.newLines} @@`,
          ),
        );
        out.push(...fromPrefixed(part.lines));
      }
    }
  }
  return h("div", { class: "diff" }, ...bounded(out));
}
