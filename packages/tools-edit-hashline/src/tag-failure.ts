import { ToolFailure } from "@bridle/core";
import type { LoadedFile } from "./load-file.js";
import type { ResolvedOptions } from "./options.js";
import { GAP, type LineSpan, renderLines, windows } from "./render.js";
import type { TagProblem } from "./resolve-tags.js";
import { lineTag } from "./tag.js";

// core bounds a failure's text to 2,000 characters with its kind in front; stay under that whole.
const BUDGET = 1_900;
const MAX_LISTED = 15;
const ERROR_LINE_CHARS = 120;

export interface TagFailureInput {
  readonly file: LoadedFile;
  readonly problems: readonly TagProblem[];
  /** Lines of tags that still match, shown when the file changed on disk though every tag matched. */
  readonly validLines: readonly number[];
  readonly changedOnDisk: boolean;
  readonly options: ResolvedOptions;
  readonly runId: string;
}

/**
 * The failure for a call whose tags do not all match the file: what is wrong with each tag, and the
 * current lines around where each one was, with fresh tags, so the model can retry at once. What it shows
 * counts as read: a retry with those tags is accepted even though the model never re-read the whole file.
 */
export function tagFailure(input: TagFailureInput): ToolFailure {
  const { file, problems } = input;
  const { contextLines } = input.options;
  const total = file.doc.count;
  const lines: string[] = [];
  // A problem that shows the current lines is one the model can retry from at once.
  const stale = problems.some((p) => p.kind === "stale" || p.kind === "line-mismatch");
  // Lines the error names with their current tags: the model may retry from them without a read.
  const pointed = problems.some(
    (p) =>
      p.kind === "line-number" || (p.kind === "unknown" && (p.near !== undefined || p.likely.length > 0)),
  );
  if (input.changedOnDisk) {
    lines.push(`${file.shown} changed on disk since you last read it; nothing was written.`);
  } else {
    lines.push(
      `${problems.length} tag${problems.length === 1 ? "" : "s"} in this call ${problems.length === 1 ? "does" : "do"} not match ${file.shown} as it is now; nothing was written.`,
    );
  }
  const spots: LineSpan[] = [];
  for (const problem of problems.slice(0, MAX_LISTED)) {
    lines.push(`- ${describeProblem(problem, file)}`);
  }
  if (problems.length > MAX_LISTED) lines.push(`- …and ${problems.length - MAX_LISTED} more`);
  for (const line of problems.flatMap(spotsOf)) {
    const at = Math.min(line, total);
    spots.push({ from: at, to: at });
  }
  for (const line of input.validLines) spots.push({ from: line, to: line });
  if (problems.length > 0 && !stale && !pointed && input.validLines.length === 0 && !input.changedOnDisk) {
    lines.push("Tags come from read_file (or an earlier edit_file result) for this same file in this run.");
  }

  const shown: ReturnType<typeof renderLines>["shown"] = [];
  const spans = windows(spots, contextLines, total);
  if (spans.length > 0) {
    lines.push(
      input.changedOnDisk && !stale
        ? "Current lines around your tags:"
        : "Current lines there (use these tags):",
    );
    let used = lines.join("\n").length + 120;
    let cutAt: number | undefined;
    spans.forEach((span, i) => {
      if (cutAt !== undefined) return;
      const rendered = renderLines(file.doc, span.from, span.to, file.doc.encoding, ERROR_LINE_CHARS);
      const block = (i > 0 ? [GAP] : []).concat(rendered.lines);
      const size = block.join("\n").length + 1;
      if (used + size > BUDGET) {
        cutAt = span.from;
        return;
      }
      used += size;
      lines.push(...block);
      shown.push(...rendered.shown);
    });
    if (cutAt !== undefined) lines.push(`[more: read_file with offset=${Math.max(1, cutAt)} shows the rest]`);
  }
  lines.push("Fix the tags and call edit_file again.");

  // Having seen the current lines around its tags, the model may edit the file as it now is.
  if (input.changedOnDisk) input.options.tracker.remember(input.runId, file.realPath, file.snapshot);
  input.options.tags.saw(input.runId, file.realPath, shown);
  return new ToolFailure(stale || input.changedOnDisk ? "Conflict" : "InvalidInput", lines.join("\n"), {
    details: { path: file.shown, problems },
  });
}

function describeProblem(problem: TagProblem, file: LoadedFile): string {
  switch (problem.kind) {
    case "malformed":
      return `${JSON.stringify(problem.raw.slice(0, 40))}: not a tag (a tag is the 8 hex characters after the line number)`;
    case "line-number": {
      const said = problem.said;
      if (said < 1 || said > file.doc.count)
        return `"${said}": a line number, not a tag, and past the end (the file has ${file.doc.count} lines); send the 8-hex-character tag read_file shows after the number`;
      const tag = lineTag(said, file.doc.text(said - 1), file.doc.encoding);
      return `"${said}": a line number, not a tag; line ${said} is now tag ${tag}. If that is the line you mean, send "${tag}"`;
    }
    case "unknown": {
      const base = `${problem.tag}: no read of ${file.shown} in this run showed this tag`;
      if (problem.near === undefined && problem.likely.length > 0) {
        const list = problem.likely.map((l) => `line ${l.line} ${currentTag(file, l.line, l.text)}`);
        return `${base}; the lines most like your new text are ${list.join(", ")}. Use the tag of the line you mean`;
      }
      if (problem.near === undefined) return base;
      const near = problem.near.line;
      return `${base}; it is one character away from the tag of line ${near}: did you mean line ${near} ${currentTag(file, near, problem.near.text)}?`;
    }
    case "line-mismatch": {
      const said = problem.said;
      const own = problem.was.line;
      const saidNow =
        said >= 1 && said <= file.doc.count
          ? `line ${said} (tag ${lineTag(said, file.doc.text(said - 1), file.doc.encoding)})`
          : `line ${said} (past the end: the file has ${file.doc.count} lines)`;
      return (
        `"${said} ${problem.tag}": tag ${problem.tag} belongs to line ${own}, not line ${said}; nothing was ` +
        `guessed. Did you mean ${saidNow} or line ${own} ${currentTag(file, own, problem.was.text)}? ` +
        "Send the tag of the line you mean"
      );
    }
    case "stale": {
      const was = `${problem.tag} (line ${problem.was.line})`;
      if (problem.movedTo !== undefined) {
        const fresh = lineTag(problem.movedTo, file.doc.text(problem.movedTo - 1), file.doc.encoding);
        return `${was} is stale: that line is now line ${problem.movedTo}, tag ${fresh}`;
      }
      if (problem.was.line > file.doc.count)
        return `${was} is stale: the file now has only ${file.doc.count} lines`;
      return `${was} is stale: line ${problem.was.line} has changed`;
    }
  }
}

/** The lines a problem's error shows, 1-based: where a stale line is now, both lines of a mismatch. */
function spotsOf(problem: TagProblem): number[] {
  switch (problem.kind) {
    case "stale":
      return [problem.movedTo ?? problem.was.line];
    case "line-mismatch":
      return [problem.said, problem.was.line].filter((line) => line >= 1);
    case "unknown":
      return [problem.near?.line, problem.said, ...problem.likely.map((l) => l.line)].filter(
        (line): line is number => line !== undefined && line >= 1,
      );
    case "line-number":
      return problem.said >= 1 ? [problem.said] : [];
    case "malformed":
      return [];
  }
}

/** "(tag X)" with a line's current tag, noting when it has changed since it was shown. */
function currentTag(file: LoadedFile, line: number, shownText: string): string {
  if (line > file.doc.count) return "(past the end of the file now)";
  const text = file.doc.text(line - 1);
  const tag = lineTag(line, text, file.doc.encoding);
  return text === shownText ? `(tag ${tag})` : `(changed since it was shown; now tag ${tag})`;
}
