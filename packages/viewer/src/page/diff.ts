// An edit drawn as a unified diff: jsdiff computes the hunks of a replacement; a V4A patch is already a
// diff and is drawn line by line; a whole-file write is all additions.
import { structuredPatch } from "diff";
import type { EditView } from "../view.js";
import { h } from "./dom.js";

const MAX_LINES = 2_000;
const CHANGED: Readonly<Record<string, string>> = { add: "added", update: "changed", delete: "removed" };

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

/** A FileDiff's hunks carry the changed lines only: each is drawn under its own `@@` header. */
function fromFileDiffs(files: Extract<EditView, { kind: "files" }>["files"]): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const file of files) {
    const to = file.movedTo ?? file.path;
    out.push(
      line("hdr", `--- ${file.change === "add" ? "/dev/null" : file.path}`),
      line("hdr", `+++ ${file.change === "delete" ? "/dev/null" : to}`),
    );
    for (const hunk of file.hunks) {
      out.push(
        line("hdr", `@@ -${hunk.oldStart},${hunk.removed.length} +${hunk.newStart},${hunk.added.length} @@`),
        ...hunk.removed.map((text) => line("del", `-${text}`)),
        ...hunk.added.map((text) => line("add", `+${text}`)),
      );
    }
    if (file.omittedLines > 0) {
      out.push(
        line("hdr", `… ${file.omittedLines} more changed lines (+${file.added} -${file.removed} in all)`),
      );
    }
  }
  return out;
}

export function renderEdit(edit: EditView): HTMLElement {
  const out: HTMLElement[] = [];
  if (edit.kind === "files") {
    out.push(...fromFileDiffs(edit.files));
    for (const file of edit.unshown ?? []) {
      out.push(line("hdr", `${CHANGED[file.change] ?? "changed"} ${file.path} (${file.reason}, not shown)`));
    }
    if (edit.more) out.push(line("hdr", `… ${edit.more} more file${edit.more === 1 ? "" : "s"} changed`));
  } else if (edit.kind === "patch") {
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
