// The one shape every edit tool gives its change, in its result's `details.diffs`, so a front door draws a
// diff for any edit format (edit_file, write_file, apply_patch, hashline edits, MultiEdit) without knowing
// the tool. Hunks carry changed lines only (no context): the file's text before the edit is not kept.
import { diffLines, type Hunk } from "./line-diff.js";

/** One file's change as a line diff: the shape of every edit result's `details.diffs`. */
export interface FileDiff {
  /** The file as the tool showed it to the model (workspace-relative where it could be). */
  readonly path: string;
  /** "add" for a file the edit created, "delete" for one it removed, else "update". */
  readonly change: "add" | "update" | "delete";
  /** The path it was moved to, when the edit renamed it. */
  readonly movedTo?: string;
  /** Lines the edit added, all of them (some may be left out of `hunks`). */
  readonly added: number;
  /** Lines the edit removed, all of them. */
  readonly removed: number;
  /** The changed places in file order: changed lines only, no context. */
  readonly hunks: readonly Hunk[];
  /** Changed lines left out of `hunks` so a result stays small (`added` and `removed` count them all). */
  readonly omittedLines: number;
}

/** Changed lines a FileDiff carries at most: enough to read, bounded so a rewrite does not bloat a result. */
export const MAX_FILE_DIFF_LINES = 400;

/** How `fileDiff` labels and bounds a diff. */
export interface FileDiffOptions {
  /** Default "update". */
  readonly change?: FileDiff["change"];
  /** Where a moved file went. */
  readonly movedTo?: string;
  /** Changed lines kept in `hunks` (default MAX_FILE_DIFF_LINES). */
  readonly maxLines?: number;
}

/** The diff of one file's text before and after an edit (`""` for a side that does not exist). */
export function fileDiff(
  path: string,
  before: string,
  after: string,
  options: FileDiffOptions = {},
): FileDiff {
  const diff = diffLines(before, after);
  const max = options.maxLines ?? MAX_FILE_DIFF_LINES;
  const hunks: Hunk[] = [];
  let kept = 0;
  for (const hunk of diff.hunks) {
    const size = hunk.removed.length + hunk.added.length;
    if (kept + size <= max) {
      hunks.push(hunk);
      kept += size;
      continue;
    }
    // The first hunk that does not fit is cut rather than dropped, so a one-hunk rewrite still shows its start.
    const room = max - kept;
    if (room > 0) {
      const removed = hunk.removed.slice(0, room);
      const added = hunk.added.slice(0, room - removed.length);
      hunks.push({ ...hunk, removed, added });
      kept += removed.length + added.length;
    }
    break;
  }
  return {
    path,
    change: options.change ?? "update",
    ...(options.movedTo === undefined ? {} : { movedTo: options.movedTo }),
    added: diff.added,
    removed: diff.removed,
    hunks,
    omittedLines: diff.added + diff.removed - kept,
  };
}

/** The `diffs` of a tool result's details, when it holds well-formed ones (details are unknown data). */
export function fileDiffsOf(details: unknown): readonly FileDiff[] {
  if (details === null || typeof details !== "object") return [];
  const diffs = (details as { diffs?: unknown }).diffs;
  if (!Array.isArray(diffs)) return [];
  return diffs.filter(isFileDiff);
}

const strings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((line) => typeof line === "string");

function isFileDiff(value: unknown): value is FileDiff {
  if (value === null || typeof value !== "object") return false;
  const d = value as Record<string, unknown>;
  return (
    typeof d.path === "string" &&
    (d.change === "add" || d.change === "update" || d.change === "delete") &&
    (d.movedTo === undefined || typeof d.movedTo === "string") &&
    typeof d.added === "number" &&
    typeof d.removed === "number" &&
    typeof d.omittedLines === "number" &&
    Array.isArray(d.hunks) &&
    d.hunks.every((hunk: unknown) => {
      if (hunk === null || typeof hunk !== "object") return false;
      const h = hunk as Record<string, unknown>;
      return (
        typeof h.oldStart === "number" &&
        typeof h.newStart === "number" &&
        strings(h.removed) &&
        strings(h.added)
      );
    })
  );
}
