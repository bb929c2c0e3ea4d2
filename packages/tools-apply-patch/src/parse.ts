import { ToolFailure } from "@bridle/core";
import { clip, clipMessage } from "./text-bounds.js";
import type { Tolerance } from "./tolerance.js";

export interface PatchLine {
  /** " " context (kept as the file has it), "-" removed, "+" added. */
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

export interface PatchChunk {
  /** The `@@ text` lines before the chunk, outermost first: each is a file line to find before the next. */
  readonly anchors: readonly string[];
  readonly lines: readonly PatchLine[];
  /** `*** End of File` closed the chunk: it sits at the very end of the file. */
  readonly endOfFile: boolean;
  /** 1-based line of the patch where the chunk starts. */
  readonly patchLine: number;
}

export type FileOperation =
  | {
      readonly kind: "add";
      readonly path: string;
      readonly lines: readonly string[];
      readonly patchLine: number;
    }
  | { readonly kind: "delete"; readonly path: string; readonly patchLine: number }
  | {
      readonly kind: "update";
      readonly path: string;
      readonly moveTo?: string;
      readonly chunks: readonly PatchChunk[];
      readonly patchLine: number;
    };

export interface ParsedPatch {
  readonly operations: readonly FileOperation[];
  readonly tolerances: readonly Tolerance[];
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const END_OF_FILE = "*** End of File";
const FENCE_OPEN = /^```[\w+.-]*$/;
// `apply_patch <<'EOF'`, or the heredoc alone (`<<'EOF'`) when the command name was left out.
const HEREDOC_OPEN = /^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1$/;

/** A parse failure: nothing was touched, and the message says which patch line to fix. */
function malformed(line: number | undefined, message: string): ToolFailure {
  const where = line === undefined ? "" : ` (patch line ${line})`;
  return new ToolFailure(
    "InvalidInput",
    clipMessage(`apply_patch: nothing was changed. Malformed patch${where}: ${message}`),
    {
      details: { code: "malformed_patch", patchLine: line },
    },
  );
}

function isFileHeader(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE);
}

/** Lines of the patch, with the wrappers models put around it removed. Numbers stay those of the text as sent. */
function unwrap(patch: string, tolerances: Tolerance[]): { lines: string[]; first: number; last: number } {
  let lines = patch.split("\n");
  if (lines.some((line) => line.endsWith("\r"))) {
    lines = lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
    tolerances.push({ kind: "crlf_patch" });
  }
  let first = 0;
  let last = lines.length - 1;
  const skipBlank = () => {
    while (first <= last && (lines[first] as string).trim() === "") first++;
    while (last >= first && (lines[last] as string).trim() === "") last--;
  };
  skipBlank();
  for (let round = 0; round < 2 && first < last; round++) {
    const head = (lines[first] as string).trim();
    const tail = (lines[last] as string).trim();
    if (FENCE_OPEN.test(head) && tail === "```") {
      tolerances.push({ kind: "markdown_fence" });
    } else {
      const heredoc = HEREDOC_OPEN.exec(head);
      if (!heredoc || tail !== heredoc[2]) break;
      tolerances.push({ kind: "heredoc_wrapper" });
    }
    first++;
    last--;
    skipBlank();
  }
  return { lines, first, last };
}

/** Parses a V4A patch (`*** Begin Patch` … `*** End Patch`), forgiving only the slips listed in Tolerance. */
export function parsePatch(patch: string): ParsedPatch {
  const tolerances: Tolerance[] = [];
  const { lines, first, last } = unwrap(patch, tolerances);
  const at = (index: number) => lines[index] as string;
  // Outside a chunk every non-blank line is a marker, so stray spaces around one are safe to drop.
  const marker = (index: number, path?: string): string => {
    const raw = at(index);
    const trimmed = raw.trim();
    if (trimmed !== raw)
      tolerances.push({ kind: "marker_whitespace", patchLine: index + 1, ...(path ? { path } : {}) });
    return trimmed;
  };

  if (first > last || marker(first) !== BEGIN) {
    const got = first <= last ? `; it starts with: ${JSON.stringify(clip(at(first)))}` : "; it is empty";
    throw malformed(first <= last ? first + 1 : undefined, `the patch must start with "${BEGIN}"${got}`);
  }
  if (last === first || marker(last) !== END) {
    throw malformed(last + 1, `the patch must end with "${END}" on its own line (was it cut off?)`);
  }

  const operations: FileOperation[] = [];
  let index = first + 1;
  const pathOf = (line: string, prefix: string, lineNo: number): string => {
    const path = line.slice(prefix.length).trim();
    if (path === "") throw malformed(lineNo, `"${prefix}" needs a path`);
    return path;
  };
  while (index < last) {
    const lineNo = index + 1;
    const raw = at(index);
    if (raw.trim() === "") {
      index++;
      continue;
    }
    const line = marker(index);
    if (line.startsWith(ADD)) {
      const path = pathOf(line, ADD, lineNo);
      const content: string[] = [];
      index++;
      while (index < last && !isFileHeader(at(index).trim())) {
        const text = at(index);
        if (text.startsWith("+")) content.push(text.slice(1));
        else if (text.trim() !== "" || !isBlankTail(lines, index, last)) {
          throw malformed(
            index + 1,
            `every line of a new file starts with "+"; got ${JSON.stringify(clip(text))}`,
          );
        }
        index++;
      }
      operations.push({ kind: "add", path, lines: content, patchLine: lineNo });
    } else if (line.startsWith(DELETE)) {
      operations.push({ kind: "delete", path: pathOf(line, DELETE, lineNo), patchLine: lineNo });
      index++;
      while (index < last && at(index).trim() === "") index++;
      if (index < last && !isFileHeader(at(index).trim())) {
        throw malformed(index + 1, `nothing may follow "${DELETE}" but the next file header`);
      }
    } else if (line.startsWith(UPDATE)) {
      const path = pathOf(line, UPDATE, lineNo);
      index++;
      let moveTo: string | undefined;
      if (index < last && at(index).trim().startsWith(MOVE)) {
        moveTo = pathOf(marker(index, path), MOVE, index + 1);
        index++;
      }
      const parsed = parseChunks(lines, index, last, path, tolerances);
      index = parsed.next;
      if (parsed.chunks.length === 0 && moveTo === undefined) {
        throw malformed(lineNo, `"${UPDATE} ${path}" has no @@ chunk and no "${MOVE}"`);
      }
      operations.push({
        kind: "update",
        path,
        ...(moveTo === undefined ? {} : { moveTo }),
        chunks: parsed.chunks,
        patchLine: lineNo,
      });
    } else {
      throw malformed(
        lineNo,
        `expected "${ADD}", "${DELETE}", "${UPDATE}" or "${END}"; got ${JSON.stringify(clip(raw))}`,
      );
    }
  }
  if (operations.length === 0) throw malformed(first + 1, "the patch changes no file");
  return { operations, tolerances };
}

/** Whether every line from `index` up to `last` (the End Patch line) is blank or a file header follows the blanks. */
function isBlankTail(lines: readonly string[], index: number, last: number): boolean {
  let cursor = index;
  while (cursor < last && (lines[cursor] as string).trim() === "") cursor++;
  return cursor === last || isFileHeader((lines[cursor] as string).trim());
}

interface MutableChunk {
  anchors: string[];
  lines: PatchLine[];
  endOfFile: boolean;
  patchLine: number;
}

function parseChunks(
  lines: readonly string[],
  start: number,
  last: number,
  path: string,
  tolerances: Tolerance[],
): { chunks: PatchChunk[]; next: number } {
  const chunks: MutableChunk[] = [];
  let current: MutableChunk | undefined;
  let index = start;
  for (; index < last; index++) {
    const raw = lines[index] as string;
    const trimmed = raw.trimEnd();
    const lineNo = index + 1;
    // The next file's header ends the section (its stray spaces are reported where it is parsed).
    if (isFileHeader(raw.trim())) break;
    // Inside a chunk a leading space makes a context line, so only trailing whitespace is forgiven here.
    if (trimmed === "@@" || trimmed.startsWith("@@ ")) {
      if (raw !== trimmed) tolerances.push({ kind: "marker_whitespace", path, patchLine: lineNo });
      const anchor = trimmed.slice(2).trim();
      if (current && current.lines.length === 0) {
        if (anchor) current.anchors.push(anchor);
      } else {
        current = { anchors: anchor ? [anchor] : [], lines: [], endOfFile: false, patchLine: lineNo };
        chunks.push(current);
      }
      continue;
    }
    if (trimmed === END_OF_FILE) {
      if (raw !== END_OF_FILE) tolerances.push({ kind: "marker_whitespace", path, patchLine: lineNo });
      if (!current || current.lines.length === 0)
        throw malformed(lineNo, `"${END_OF_FILE}" must close a chunk`);
      current.endOfFile = true;
      current = undefined;
      continue;
    }
    if (raw === "") {
      // A blank separator before the next file section or the end of the patch belongs to no chunk.
      if (isBlankTail(lines, index, last)) continue;
      if (current) tolerances.push({ kind: "blank_context_line", path, patchLine: lineNo });
    }
    const kind = raw === "" ? " " : raw[0];
    if (kind !== " " && kind !== "-" && kind !== "+") {
      throw malformed(
        lineNo,
        `in "${UPDATE} ${path}" every line starts with " " (context), "-" (remove), "+" (add), "@@" or "***"; got ${JSON.stringify(clip(raw))}`,
      );
    }
    if (!current) {
      if (chunks.length > 0) throw malformed(lineNo, `a chunk after "${END_OF_FILE}" must start with "@@"`);
      tolerances.push({ kind: "missing_first_hunk_header", path, patchLine: lineNo });
      if (raw === "") tolerances.push({ kind: "blank_context_line", path, patchLine: lineNo });
      current = { anchors: [], lines: [], endOfFile: false, patchLine: lineNo };
      chunks.push(current);
    }
    current.lines.push({ kind, text: raw.slice(1) });
  }
  for (const chunk of chunks) {
    if (chunk.lines.length === 0)
      throw malformed(chunk.patchLine, `the chunk of "${path}" starting here has no lines`);
    if (!chunk.lines.some((line) => line.kind !== " ")) {
      throw malformed(
        chunk.patchLine,
        `the chunk of "${path}" starting here changes nothing (no "-" or "+" line)`,
      );
    }
  }
  return { chunks, next: index };
}
