// The benchmark's reference edit (input tree → expected tree) as the tool calls a model would make in each
// of Bridle's edit formats: the smallest block of whole lines that changes, quoted once (replace), as a
// tag-anchored range (hashline) or as a V4A chunk with context (apply_patch); new files through write_file
// or Add File, removed files through the shell or Delete File. No model: check mode plays these calls.

import { shellQuote } from "@bridle/core/node";
import type { EditFormatName, SeenLine } from "../edit-format/edits.js";

export interface FileChange {
  readonly path: string;
  /** Undefined: the file is new. */
  readonly before: string | undefined;
  /** Undefined: the file is removed. */
  readonly after: string | undefined;
}

export interface PlannedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The files that differ between the trees, in path order; text only (UTF-8 that round-trips). */
export function fileChanges(
  input: ReadonlyMap<string, Buffer>,
  expected: ReadonlyMap<string, Buffer>,
): { changes: FileChange[]; binary: string[] } {
  const paths = [...new Set([...input.keys(), ...expected.keys()])].sort();
  const changes: FileChange[] = [];
  const binary: string[] = [];
  for (const path of paths) {
    const a = input.get(path);
    const b = expected.get(path);
    if (a && b && a.equals(b)) continue;
    const text = (bytes: Buffer | undefined) => {
      if (!bytes) return undefined;
      const decoded = bytes.toString("utf8");
      return Buffer.from(decoded, "utf8").equals(bytes) ? decoded : null;
    };
    const before = text(a);
    const after = text(b);
    if (before === null || after === null) binary.push(path);
    else changes.push({ path, before, after });
  }
  return { changes, binary };
}

/** Lines [start, end) of the old text become `replacement` (indices into the "\n"-split text). */
interface Block {
  readonly start: number;
  readonly end: number;
  readonly replacement: readonly string[];
}

function blockOf(before: string, after: string): { lines: string[]; block: Block } {
  const a = before.split("\n");
  const b = after.split("\n");
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  return {
    lines: a,
    block: { start: prefix, end: a.length - suffix, replacement: b.slice(prefix, b.length - suffix) },
  };
}

const count = (text: string, part: string): number => (part === "" ? 0 : text.split(part).length - 1);

/** The call that needs nothing from a read (replace, apply_patch, write, delete); undefined for hashline. */
export function referenceCall(format: EditFormatName, change: FileChange): PlannedCall | undefined {
  const { path, before, after } = change;
  if (after === undefined) {
    return format === "apply_patch"
      ? {
          name: "apply_patch",
          arguments: { input: `*** Begin Patch\n*** Delete File: ${path}\n*** End Patch` },
        }
      : { name: "bash", arguments: { command: `rm -- ${shellQuote(path)}` } };
  }
  if (before === undefined || before === "") {
    if (format !== "apply_patch") return { name: "write_file", arguments: { path, content: after } };
    if (before === undefined) {
      const body = after.endsWith("\n") ? after.slice(0, -1) : after;
      return {
        name: "apply_patch",
        arguments: {
          input: `*** Begin Patch\n*** Add File: ${path}\n${body
            .split("\n")
            .map((line) => `+${line}`)
            .join("\n")}\n*** End Patch`,
        },
      };
    }
  }
  if (format === "replace") return replaceCall(path, before ?? "", after);
  if (format === "apply_patch") return patchCall(path, before ?? "", after);
  return undefined;
}

function replaceCall(path: string, before: string, after: string): PlannedCall {
  const { lines, block } = blockOf(before, after);
  let start = block.start;
  let end = block.end;
  // A pure insertion or a deletion quotes a neighbouring line (a deletion's quote must take its line
  // break with it); then the quote grows until it occurs once.
  if (start === end || block.replacement.length === 0) {
    if (start > 0) start--;
    else end++;
  }
  while (count(before, lines.slice(start, end).join("\n")) > 1 && (start > 0 || end < lines.length)) {
    if (end < lines.length) end++;
    if (count(before, lines.slice(start, end).join("\n")) > 1 && start > 0) start--;
  }
  const oldString = lines.slice(start, end).join("\n");
  const newString = [
    ...lines.slice(start, block.start),
    ...block.replacement,
    ...lines.slice(block.end, end),
  ].join("\n");
  return { name: "edit_file", arguments: { path, old_string: oldString, new_string: newString } };
}

const CONTEXT = 3;

function patchCall(path: string, before: string, after: string): PlannedCall {
  const { lines, block } = blockOf(before, after);
  // V4A chunks are whole lines: a trailing "" element is the final line break, not a line.
  const last = lines.at(-1) === "" ? lines.length - 1 : lines.length;
  const from = Math.max(0, block.start - CONTEXT);
  const to = Math.min(last, block.end + CONTEXT);
  const replacement =
    block.end >= lines.length && lines.at(-1) === "" ? block.replacement.slice(0, -1) : block.replacement;
  const chunk = [
    ...lines.slice(from, block.start).map((line) => ` ${line}`),
    ...lines.slice(block.start, Math.min(block.end, last)).map((line) => `-${line}`),
    ...replacement.map((line) => `+${line}`),
    ...lines.slice(Math.min(block.end, last), to).map((line) => ` ${line}`),
  ];
  const atEnd = to >= last;
  return {
    name: "apply_patch",
    arguments: {
      input: `*** Begin Patch\n*** Update File: ${path}\n@@\n${chunk.join("\n")}${atEnd ? "\n*** End of File" : ""}\n*** End Patch`,
    },
  };
}

/** The hashline edit for a change, from the lines (with tags) the read showed. */
export function hashlineCall(change: FileChange, seen: readonly SeenLine[]): PlannedCall {
  const { lines, block } = blockOf(change.before ?? "", change.after ?? "");
  // The read shows the file's lines; a final line break is no line of its own.
  const shown = lines.at(-1) === "" ? lines.length - 1 : lines.length;
  const end = Math.min(block.end, shown);
  // Lines are sent as the read shows them: a CRLF file's carriage returns are the tool's to keep.
  const crlf = (change.before ?? "").includes("\r\n");
  const replacement = (
    block.end > shown && lines.at(-1) === "" ? block.replacement.slice(0, -1) : block.replacement
  ).map((line) => (crlf ? line.replace(/\r$/, "") : line));
  const tag = (index: number) => seen[index]?.tag ?? "";
  let edit: Record<string, unknown>;
  if (block.start === end) {
    edit =
      block.start > 0
        ? { op: "insert_after", tag: tag(block.start - 1), new_text: replacement.join("\n") }
        : {
            op: "replace_line",
            tag: tag(0),
            new_text: [...replacement, lines[0] ?? ""].join("\n"),
          };
  } else if (end - block.start === 1) {
    edit = { op: "replace_line", tag: tag(block.start), new_text: replacement.join("\n") };
    if (replacement.length === 0) edit = { op: "delete_line", tag: tag(block.start) };
  } else {
    edit = {
      op: "replace_range",
      start_tag: tag(block.start),
      end_tag: tag(end - 1),
      new_text: replacement.join("\n"),
    };
  }
  return { name: "edit_file", arguments: { path: change.path, edits: [edit] } };
}
