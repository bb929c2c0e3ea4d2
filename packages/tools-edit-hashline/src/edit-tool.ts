import { argumentAliases, defineTool, type FileDiff, fileDiff, ToolFailure } from "@bridle/core";
import { decodeText, sameContent, updateFile, wholeToolScope } from "@bridle/tools-fs";
import { applyChanges, assertEncodable, duplicatedNeighbours, planEdits } from "./apply-edits.js";
import { type LineSource, serializeDocument } from "./document.js";
import { type EditFileArgs, editFileSchema } from "./edit-schema.js";
import { assertNoLineSlips } from "./line-slips.js";
import { type LoadedFile, textFile } from "./load-file.js";
import type { ResolvedOptions } from "./options.js";
import { assertNotOverEscaped } from "./over-escape.js";
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
  /** The change as a line diff, for front doors to draw. */
  readonly diffs: readonly FileDiff[];
}

// An edit result is a view of what changed, not a read: past this many lines it points at read_file.
const MAX_RESULT_LINES = 400;

export function createEditTool(options: ResolvedOptions) {
  return defineTool<typeof editFileSchema, HashlineEditDetails>({
    name: "edit_file",
    description:
      "Edit a file read in this run by the tags of your latest read or edit (replace_range includes end_tag). " +
      'new_text may span lines; "" deletes. ' +
      "A stale tag writes nothing, shows fresh tags.",
    inputSchema: editFileSchema,
    prepareArguments: argumentAliases({ filePath: "path" }),
    annotations: { destructive: true },
    approvalScope: (args) => wholeToolScope("edit_file", `edits ${args.path}`),
    async execute(args, ctx) {
      const outcome = await updateFile(
        ctx.workspace,
        args.path,
        {
          create: false,
          maxBytes: options.maxFileBytes,
          requireBytes: true,
          tracker: options.tracker,
          runId: ctx.runId,
          signal: ctx.signal,
        },
        ({ real, shown, current }) => {
          if (!current?.bytes) throw new ToolFailure("NotFound", `${shown}: no such file`);
          return planFileEdit(
            textFile(real, shown, current.bytes, current.snapshot),
            args,
            ctx.runId,
            options,
          );
        },
      );
      const { file, applied, result, repairs, diff } = outcome;
      // Only now that the new bytes are on disk do their tags count as shown.
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
          diffs: [diff],
        },
      };
    },
  });
}

/**
 * The edit worked out on the file as loaded under the lock: the tags must all be ones this run was shown
 * and the file unchanged since its last read. The bytes are undefined when the edit changes nothing.
 */
function planFileEdit(file: LoadedFile, args: EditFileArgs, runId: string, options: ResolvedOptions) {
  const seen = options.tracker.lastSeen(runId, file.realPath);
  const shownTags = options.tags.shown(runId, file.realPath);
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
    throw tagFailure({ file, problems, validLines, changedOnDisk, options, runId });
  }
  const repairs: string[] = [];
  const changes = planEdits(args.edits, index, repairs, {
    shown: shownTags,
    verbatim: args.verbatim === true,
  });
  if (args.verbatim !== true) {
    assertNotOverEscaped(doc, changes);
    assertNoLineSlips(doc, changes, doc.encoding);
  }
  assertEncodable(doc, changes);
  const applied = applyChanges(doc, changes);
  const repeats = duplicatedNeighbours(doc, changes);
  if (repeats.length > 0 && args.verbatim !== true) {
    throw new ToolFailure(
      "InvalidInput",
      `${repeats.join("; ")}: applied, that line would be there twice, so nothing was written. ` +
        "If it should stay as it is, leave it out of new_text; if new_text replaces it, widen the edit to it " +
        '(replace_range). If the file should hold it twice, resend the same call with "verbatim": true.',
    );
  }
  repairs.push(...repeats);
  const bytes = serializeDocument(applied.lines);
  const result = renderResult(
    file.shown,
    applied.lines,
    doc.encoding,
    applied,
    args.edits.length,
    repairs,
    options,
  );
  const diff = fileDiff(file.shown, decodeText(file.bytes).text, decodeText(bytes).text);
  return {
    bytes: bytes.equals(file.bytes) ? undefined : bytes,
    value: { file, applied, result, repairs, diff },
  };
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
