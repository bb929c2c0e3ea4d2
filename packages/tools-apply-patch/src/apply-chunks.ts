import { ToolFailure } from "@bridle/core";
import { closestStart, mostSimilarLine } from "./closest.js";
import type { PatchChunk } from "./parse.js";
import { asciiPunctuation } from "./punctuation.js";
import { clip, clipMessage } from "./text-bounds.js";
import type { Tolerance } from "./tolerance.js";

/** How strictly a patch line must equal a file line: as written, then without trailing space, then with ASCII punctuation. */
const LEVELS = [
  { compare: (line: string) => line, tolerance: undefined },
  { compare: (line: string) => line.trimEnd(), tolerance: "context_trailing_whitespace" },
  { compare: asciiPunctuation, tolerance: "context_punctuation" },
] as const;

/** Matches collected before a chunk is called ambiguous (two suffice; a few more make a better message). */
const MAX_CANDIDATES = 5;
/** Lines of the patch and of the file quoted in a failure. */
const MAX_SHOWN_LINES = 12;

interface Placement {
  readonly at: number;
  readonly chunk: PatchChunk;
}

/**
 * The file's lines with every chunk applied, or a ToolFailure naming the chunk that does not fit. Chunks are
 * found in order, each after the one before; context lines keep the file's own text (only `-` and `+`
 * lines change anything), so a tolerant match never rewrites the lines it matched loosely.
 */
export function applyChunks(
  shown: string,
  lines: readonly string[],
  chunks: readonly PatchChunk[],
  tolerances: Tolerance[],
): string[] {
  const mapped: (readonly string[] | undefined)[] = [lines, undefined, undefined];
  const view = (level: number): readonly string[] => {
    mapped[level] ??= lines.map(LEVELS[level]?.compare ?? ((line: string) => line));
    return mapped[level] as readonly string[];
  };
  const placements: Placement[] = [];
  let cursor = 0;
  chunks.forEach((chunk, index) => {
    const where = `${shown}, chunk ${index + 1} of ${chunks.length} (patch line ${chunk.patchLine})`;
    let from = cursor;
    for (const anchor of chunk.anchors) {
      const found = findAnchor(view, anchor, from);
      if (found === undefined) throw anchorMissing(where, lines, anchor, from);
      if (found.level > 0) tolerances.push(tolerance(found.level, shown, chunk.patchLine));
      from = found.at + 1;
    }
    const old = chunk.lines.filter((line) => line.kind !== "+").map((line) => line.text);
    if (old.length === 0) {
      // A pure addition goes where its @@ line points, else at the end (as Codex places it), said in the
      // result so a model that meant somewhere else learns where its lines went.
      if (chunk.endOfFile || chunk.anchors.length === 0) {
        placements.push({ at: lines.length, chunk });
        if (!chunk.endOfFile && lines.length > 0) {
          tolerances.push({ kind: "appended_without_context", path: shown, patchLine: chunk.patchLine });
        }
      } else placements.push({ at: from, chunk });
      cursor = from;
      return;
    }
    for (let level = 0; level < LEVELS.length; level++) {
      const matches = chunk.endOfFile
        ? matchesAt(view(level), old, lines.length - old.length, level, from)
        : findAll(view(level), old, level, from, MAX_CANDIDATES);
      if (matches.length === 0) continue;
      if (matches.length > 1 && chunk.anchors.length === 0) throw ambiguous(where, lines, old, matches);
      const at = matches[0] as number;
      if (level > 0) tolerances.push(tolerance(level, shown, chunk.patchLine));
      placements.push({ at, chunk });
      cursor = at + old.length;
      return;
    }
    throw notFound(where, lines, old, from, cursor, chunk, view);
  });
  return splice(lines, placements);
}

function tolerance(level: number, path: string, patchLine: number): Tolerance {
  return { kind: LEVELS[level]?.tolerance ?? "context_punctuation", path, patchLine };
}

function splice(lines: readonly string[], placements: readonly Placement[]): string[] {
  const out: string[] = [];
  let position = 0;
  for (const { at, chunk } of placements) {
    for (let index = position; index < at; index++) out.push(lines[index] as string);
    let source = at;
    for (const line of chunk.lines) {
      if (line.kind === " ") out.push(lines[source++] as string);
      else if (line.kind === "-") source++;
      else out.push(line.text);
    }
    position = source;
  }
  for (let index = position; index < lines.length; index++) out.push(lines[index] as string);
  return out;
}

function matchesAt(
  view: readonly string[],
  old: readonly string[],
  at: number,
  level: number,
  from: number,
): number[] {
  if (at < from || at < 0) return [];
  const compare = LEVELS[level]?.compare ?? ((line: string) => line);
  for (let offset = 0; offset < old.length; offset++) {
    if (view[at + offset] !== compare(old[offset] as string)) return [];
  }
  return [at];
}

function findAll(
  view: readonly string[],
  old: readonly string[],
  level: number,
  from: number,
  limit: number,
): number[] {
  const compare = LEVELS[level]?.compare ?? ((line: string) => line);
  const wanted = old.map(compare);
  const first = wanted[0] as string;
  const found: number[] = [];
  const last = view.length - wanted.length;
  outer: for (let at = from; at <= last; at++) {
    if (view[at] !== first) continue;
    for (let offset = 1; offset < wanted.length; offset++) {
      if (view[at + offset] !== wanted[offset]) continue outer;
    }
    found.push(at);
    if (found.length >= limit) break;
  }
  return found;
}

function findAnchor(
  view: (level: number) => readonly string[],
  anchor: string,
  from: number,
): { at: number; level: number } | undefined {
  // An anchor names a line by its text; indentation around it is not part of the name.
  const exact = view(0);
  for (let at = from; at < exact.length; at++)
    if ((exact[at] as string).trim() === anchor) return { at, level: 0 };
  const loose = view(2);
  const wanted = asciiPunctuation(anchor).trim();
  for (let at = from; at < loose.length; at++)
    if ((loose[at] as string).trim() === wanted) return { at, level: 2 };
  return undefined;
}

function failure(where: string, message: string, details: Record<string, unknown>): ToolFailure {
  return new ToolFailure(
    "InvalidInput",
    clipMessage(`apply_patch: nothing was changed. ${where}: ${message}`),
    {
      details,
    },
  );
}

function numbered(lines: readonly string[], start: number, count: number): string {
  const end = Math.min(lines.length, start + Math.min(count, MAX_SHOWN_LINES));
  const out: string[] = [];
  for (let index = Math.max(0, start); index < end; index++) {
    out.push(`${String(index + 1).padStart(6)}\t${clip(lines[index] as string)}`);
  }
  if (start + count > end && end < lines.length) out.push("   …");
  return out.join("\n");
}

function expectedBlock(old: readonly string[]): string {
  const shown = old.slice(0, MAX_SHOWN_LINES).map((line) => `  ${clip(line)}`);
  if (old.length > MAX_SHOWN_LINES) shown.push(`  … (${old.length - MAX_SHOWN_LINES} more lines)`);
  return shown.join("\n");
}

function ambiguous(
  where: string,
  lines: readonly string[],
  old: readonly string[],
  matches: readonly number[],
): ToolFailure {
  const more = matches.length >= MAX_CANDIDATES ? " or more" : "";
  const candidates = matches
    .slice(0, 3)
    .map((at) => `lines ${at + 1}-${at + old.length}:\n${numbered(lines, at, Math.min(old.length, 4))}`)
    .join("\n");
  return failure(
    where,
    `the context and "-" lines match ${matches.length}${more} places (starting at lines ${matches.map((at) => at + 1).join(", ")}${more ? ", …" : ""}). ` +
      `Add context lines that differ between them, or an @@ line naming the enclosing class or function.\n${candidates}`,
    { code: "ambiguous_context", candidates: matches.map((at) => at + 1) },
  );
}

function anchorMissing(where: string, lines: readonly string[], anchor: string, from: number): ToolFailure {
  const near = mostSimilarLine(lines, anchor, from);
  const hint = near === undefined ? "" : `\nClosest line:\n${numbered(lines, near, 1)}`;
  return failure(
    where,
    `the @@ line ${JSON.stringify(clip(anchor))} names no line of the file${from > 0 ? ` after line ${from}` : ""}. ` +
      `Copy a line of the file exactly (it is matched ignoring indentation).${hint}`,
    { code: "anchor_not_found", closest: near === undefined ? undefined : near + 1 },
  );
}

function notFound(
  where: string,
  lines: readonly string[],
  old: readonly string[],
  from: number,
  cursor: number,
  chunk: PatchChunk,
  view: (level: number) => readonly string[],
): ToolFailure {
  // Found before the previous chunk: the chunks are out of order, which is easy to fix once said.
  if (from > 0 && !chunk.endOfFile) {
    for (let level = 0; level < LEVELS.length; level++) {
      const earlier = findAll(view(level), old, level, 0, 1)[0];
      if (earlier !== undefined && earlier < cursor) {
        return failure(
          where,
          `its lines are at line ${earlier + 1}, before the previous chunk. Order the chunks of a file from top to bottom.`,
          { code: "chunk_out_of_order", line: earlier + 1 },
        );
      }
    }
  }
  const start = closestStart(lines, old, chunk.anchors.length > 0 ? from : 0);
  const close =
    start === undefined
      ? "No line of the file resembles them."
      : `Closest in the file (lines ${start + 1}-${Math.min(lines.length, start + old.length)}):\n${numbered(lines, start, old.length)}`;
  const eof = chunk.endOfFile ? ' at the end of the file ("*** End of File")' : "";
  return failure(
    where,
    `the context and "-" lines were not found${eof}${chunk.anchors.length > 0 ? " after its @@ line" : ""}. Expected:\n${expectedBlock(old)}\n${close}\n` +
      "Read the file again and copy the context lines exactly.",
    { code: "context_not_found", closest: start === undefined ? undefined : start + 1 },
  );
}
