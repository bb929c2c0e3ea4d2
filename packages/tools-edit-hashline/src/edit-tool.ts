import { stat } from "node:fs/promises";
import { defineTool, ToolFailure } from "@bridle/core";
import {
  commitWrite,
  resolveExistingOrSuggest,
  sameContent,
  snapshotOf,
  withFileLock,
} from "@bridle/tools-fs";
import { applyChanges, assertEncodable, planEdits } from "./apply-edits.js";
import { type LineSource, serializeDocument } from "./document.js";
import { editFileSchema } from "./edit-schema.js";
import { type LoadedFile, loadTextFile } from "./load-file.js";
import type { ResolvedOptions } from "./options.js";
import { GAP, renderLines, windows } from "./render.js";
import { resolveTags } from "./resolve-tags.js";
import type { TextEncodingName } from "./tag.js";
import { tagFailure } from "./tag-failure.js";

export interface HashlineEditDetails {
  readonly path: string;
  readonly editsApplied: number;
  readonly linesRemoved: number;
  readonly linesAdded: number;
  readonly totalLines: number;
  /** Where the new lines are, 1-based and inclusive (a deletion is an empty span: to = from - 1). */
  readonly regions: readonly { readonly from: number; readonly to: number }[];
  readonly repairs: readonly string[];
}

// An edit result is a view of what changed, not a read: past this many lines it points at read_file.
const MAX_RESULT_LINES = 400;

export function createEditTool(options: ResolvedOptions) {
  return defineTool<typeof editFileSchema, HashlineEditDetails>({
    name: "edit_file",
    description:
      "Edit a text file by the line tags read_file showed. `edits` is a list of: " +
      '{op:"replace_line", tag, new_text}, {op:"insert_after", tag, new_text}, {op:"delete_line", tag}, ' +
      '{op:"replace_range", start_tag, end_tag, new_text} (inclusive; new_text "" deletes the range). ' +
      "new_text may hold several lines separated by \\n. Every tag must come from your latest read of the " +
      "file, and the edits are applied together or not at all: if any tag is stale nothing is written and " +
      "the error shows the current lines with fresh tags. The file must have been read first in this run. " +
      "The result shows the changed lines with their new tags.",
    inputSchema: editFileSchema,
    annotations: { destructive: true },
    async execute(args, ctx) {
      const realPath = await resolveExistingOrSuggest(ctx.workspace, args.path);
      return withFileLock(realPath, async () => {
        const file = await loadTextFile(ctx.workspace, args.path, options.maxFileBytes, ctx.signal);
        const seen = options.tracker.lastSeen(ctx.runId, file.realPath);
        const shownTags = options.tags.shown(ctx.runId, file.realPath);
        if (!seen || !shownTags) {
          throw new ToolFailure(
            "Conflict",
            `${file.shown} has not been read in this run; call read_file on it first (edits name lines by the tags it shows)`,
          );
        }
        const { doc } = file;
        const { index, problems } = resolveTags(args.edits, doc, doc.encoding, shownTags);
        const changedOnDisk = !sameContent(seen, file.snapshot);
        if (problems.length > 0 || changedOnDisk) {
          const validLines = problems.length > 0 ? [] : [...new Set(index.values())].map((i) => i + 1);
          throw tagFailure({
            file,
            problems,
            validLines,
            changedOnDisk,
            options,
            runId: ctx.runId,
          });
        }

        const repairs: string[] = [];
        const changes = planEdits(args.edits, index, repairs);
        assertEncodable(doc, changes);
        const applied = applyChanges(doc, changes);
        const bytes = serializeDocument(applied.lines);
        if (ctx.signal.aborted) throw new ToolFailure("Cancelled", "the edit was cancelled before writing");
        await assertUnchangedSince(file);
        // What was written is what the run now knows: its own edit never counts as a change on disk.
        if (bytes.equals(file.bytes)) options.tracker.remember(ctx.runId, file.realPath, file.snapshot);
        else await commitWrite(options.tracker, ctx.runId, file.realPath, bytes, ctx.signal);

        const result = renderResult(
          file.shown,
          applied.lines,
          doc.encoding,
          applied,
          args.edits.length,
          repairs,
          options,
        );
        options.tags.saw(ctx.runId, file.realPath, result.shown);
        return {
          content: result.text,
          details: {
            path: file.shown,
            editsApplied: args.edits.length,
            linesRemoved: applied.linesRemoved,
            linesAdded: applied.linesAdded,
            totalLines: applied.lines.count,
            regions: applied.regions,
            repairs,
          },
        };
      });
    },
  });
}

/**
 * The last look before the rename: another process may have written the file while the edit was planned.
 * The lock covers this process only, so compare what is on disk now with what was read.
 */
async function assertUnchangedSince(file: LoadedFile): Promise<void> {
  if (!sameContent(file.snapshot, snapshotOf(await stat(file.realPath, { bigint: true })))) {
    throw new ToolFailure(
      "Conflict",
      `${file.shown} changed on disk while this edit was being prepared; nothing was written. Read it again.`,
    );
  }
}

function renderResult(
  shown: string,
  lines: LineSource,
  encoding: TextEncodingName,
  applied: ReturnType<typeof applyChanges>,
  editCount: number,
  repairs: readonly string[],
  options: ResolvedOptions,
) {
  const total = lines.count;
  const header =
    `Edited ${shown}: ${editCount} edit${editCount === 1 ? "" : "s"} applied, ` +
    `${applied.linesRemoved} line${applied.linesRemoved === 1 ? "" : "s"} removed, ${applied.linesAdded} added; ` +
    `the file now has ${total} line${total === 1 ? "" : "s"}. Changed lines with fresh tags:`;
  const out = [header];
  const shownLines: ReturnType<typeof renderLines>["shown"] = [];
  let budget = MAX_RESULT_LINES;
  let chars = header.length;
  let spans = windows(applied.regions, options.contextLines, total);
  // Many scattered edits: the changed lines themselves matter more than the context around them.
  if (spans.reduce((sum, span) => sum + span.to - span.from + 1, 0) > MAX_RESULT_LINES) {
    spans = windows(applied.regions, 0, total);
  }
  for (const [i, span] of spans.entries()) {
    const to = Math.min(span.to, span.from + budget - 1);
    const rendered = renderLines(lines, span.from, to, encoding, options.maxLineChars);
    if (i > 0) out.push(GAP);
    out.push(...rendered.lines);
    shownLines.push(...rendered.shown);
    budget -= to - span.from + 1;
    chars += rendered.lines.reduce((sum, line) => sum + line.length + 1, 0);
    if (to < span.to || budget <= 0 || chars > options.maxOutputChars) {
      out.push(`[more changed lines not shown; read_file with offset=${to + 1} shows them]`);
      break;
    }
  }
  if (total === 0) out.push("[the file is now empty]");
  for (const repair of repairs) out.push(`[note: ${repair}]`);
  return { text: out.join("\n"), shown: shownLines };
}
