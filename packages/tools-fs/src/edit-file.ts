import {
  argumentAliases,
  defineTool,
  type FileDiff,
  fileDiff,
  ToolFailure,
  type ToolOutput,
} from "@bridle/core";
import { z } from "zod";
import { closestHint, numberedLines } from "./edit-hints.js";
import { lineOf, occurrences, planTextEdit } from "./edit-match.js";
import type { FsSettings } from "./options.js";
import { sameContent } from "./snapshot.js";
import { decodeText, encodeText, looksBinary } from "./text-format.js";
import { updateFile } from "./update-file.js";
import { wholeToolScope } from "./whole-tool-scope.js";

export interface EditHunk {
  /** 1-based line in the new file where the replacement starts. */
  readonly line: number;
  readonly oldText: string;
  readonly newText: string;
}

export interface EditFileDetails {
  readonly path: string;
  readonly replacements: number;
  readonly hunks: readonly EditHunk[];
  readonly repairs: readonly string[];
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** The change as a line diff, for front doors to draw (empty when nothing changed). */
  readonly diffs: readonly FileDiff[];
}

const inputSchema = z.object({
  path: z.string().min(1).describe("file"),
  old_string: z.string().describe("Exact text to replace"),
  new_string: z.string().describe("Replacement text"),
  replace_all: z.boolean().optional().describe("replace every occurrence (default false)"),
});

const SNIPPET_CONTEXT = 2;
const MAX_SNIPPETS = 3;
const MAX_SNIPPET_LINES = 30;
const MAX_HUNK_CHARS = 4_000;

export function createEditFileTool(settings: FsSettings) {
  return defineTool({
    name: "edit_file",
    description:
      "Replace exact text in a file read in this run (again if it changed since). old_string must match exactly, whitespace included, " +
      "and unless replace_all in exactly one place.",
    inputSchema,
    // Spellings other agents' edit tools taught models (OpenCode's filePath, oldString, newString, replaceAll).
    prepareArguments: argumentAliases({
      filePath: "path",
      oldString: "old_string",
      newString: "new_string",
      replaceAll: "replace_all",
    }),
    // A repeated attempt (the first may have landed before its process stopped) looks before editing.
    annotations: { destructive: true, repeat_safe: true },
    sequential: true,
    approvalScope: (args) => wholeToolScope("edit_file", `edits ${args.path}`),
    async execute(args, ctx): Promise<ToolOutput<EditFileDetails>> {
      return updateFile(
        ctx.workspace,
        args.path,
        {
          create: false,
          maxBytes: settings.maxEditBytes,
          requireBytes: true,
          tracker: settings.tracker,
          runId: ctx.runId,
          signal: ctx.signal,
        },
        ({ real, shown, current }) => {
          const before = current?.bytes;
          if (!current || !before) throw new ToolFailure("NotFound", `${shown}: no such file`);
          if (looksBinary(before)) {
            throw new ToolFailure(
              "InvalidInput",
              `${shown} is a binary file; edit_file changes text files only.`,
            );
          }
          const { text, format } = decodeText(before);
          if (ctx.repeated) {
            const landed = repeatedEdit(shown, text, args.old_string, args.new_string);
            if (landed) return { bytes: before, value: landed(before.length) };
          }
          const seen = settings.tracker.lastSeen(ctx.runId, real);
          if (seen !== undefined && !sameContent(seen, current.snapshot)) {
            throw staleRead(shown, text, args.old_string, () =>
              settings.tracker.remember(ctx.runId, real, current.snapshot),
            );
          }
          settings.tracker.assertUnchanged(ctx.runId, real, current.snapshot, shown);
          const plan = planTextEdit(text, format, {
            oldString: args.old_string,
            newString: args.new_string,
            replaceAll: args.replace_all ?? false,
          });
          const bytes = encodeText(plan.text, format);
          return { bytes, value: report(shown, text, plan, before.length, bytes.length) };
        },
      );
    },
  });
}

/**
 * A second attempt of the same call (ToolCallEnv.repeated): old_string gone and new_string there means the
 * first attempt landed, so nothing is done again. When new_string contains old_string that cannot be told
 * apart from an edit still to do, so it is refused rather than risk applying it twice.
 */
function repeatedEdit(
  shown: string,
  text: string,
  oldString: string,
  newString: string,
): ((bytes: number) => ToolOutput<EditFileDetails>) | undefined {
  if (oldString !== "" && newString.includes(oldString)) {
    throw new ToolFailure(
      "Conflict",
      `${shown}: this call is a repeat of one that may already have edited the file, and new_string contains old_string, so whether it landed cannot be told. Read the file, then edit again if needed.`,
    );
  }
  if (newString === "" || text.includes(oldString) || !text.includes(newString)) return undefined;
  return (bytes) => ({
    content: `Edited ${shown}: already done (an earlier attempt of this same call made the edit before its process stopped); nothing changed.`,
    details: {
      path: shown,
      replacements: 0,
      hunks: [],
      repairs: [],
      bytesBefore: bytes,
      bytesAfter: bytes,
      diffs: [],
    },
  });
}

function report(
  shown: string,
  before: string,
  plan: ReturnType<typeof planTextEdit>,
  bytesBefore: number,
  bytesAfter: number,
): ToolOutput<EditFileDetails> {
  const lines = plan.text.split("\n");
  if (plan.text.endsWith("\n")) lines.pop();
  const startLines = plan.starts.map((at) => lineOf(plan.text, at));
  const hunks = startLines.slice(0, 20).map((line) => ({
    line,
    oldText: plan.search.slice(0, MAX_HUNK_CHARS),
    newText: plan.replacement.slice(0, MAX_HUNK_CHARS),
  }));
  const count = plan.starts.length;
  const out = [
    `Edited ${shown}: ${count} replacement${count === 1 ? "" : "s"} (line${count === 1 ? "" : "s"} ${startLines.slice(0, 10).join(", ")}${count > 10 ? ", …" : ""}).`,
  ];
  if (plan.repairs.length > 0) out.push(`Note: ${plan.repairs.join("; ")}.`);
  const addedLines = plan.replacement.split("\n").length;
  for (const line of startLines.slice(0, MAX_SNIPPETS)) {
    out.push("", snippet(lines, line, addedLines));
  }
  return {
    content: out.join("\n"),
    details: {
      path: shown,
      replacements: count,
      hunks,
      repairs: plan.repairs,
      bytesBefore,
      bytesAfter,
      diffs: [fileDiff(shown, before, plan.text)],
    },
  };
}

/** The replaced region in the new file, numbered like read_file, with a little context. */
function snippet(lines: readonly string[], startLine: number, replacedLines: number): string {
  const from = Math.max(1, startLine - SNIPPET_CONTEXT);
  const to = Math.min(
    lines.length,
    startLine + replacedLines - 1 + SNIPPET_CONTEXT,
    from + MAX_SNIPPET_LINES - 1,
  );
  const width = String(to).length;
  const out: string[] = [];
  for (let number = from; number <= to; number++) {
    const text = (lines[number - 1] ?? "").replace(/\r$/, "");
    out.push(
      `${String(number).padStart(width, " ")}\t${text.length > 500 ? `${text.slice(0, 500)} …` : text}`,
    );
  }
  return out.join("\n");
}

/**
 * The refusal for a file that changed since the run read it, showing the current lines where old_string
 * is (or most likely was meant to be). Those lines count as read, so the model can retry from them alone.
 */
function staleRead(shown: string, text: string, oldString: string, markSeen: () => void): ToolFailure {
  const head = `${shown} changed on disk since this run last read it; nothing was written.`;
  const found = oldString === "" ? [] : occurrences(text, oldString);
  let body: string | undefined;
  if (found.length === 1) {
    const from = lineOf(text, found[0] as number);
    const to = lineOf(text, (found[0] as number) + oldString.length);
    body =
      `old_string is still there, once; the current lines around it:\n` +
      `${numberedLines(text, Math.max(1, from - SNIPPET_CONTEXT), to + SNIPPET_CONTEXT)}\n` +
      "If your edit still applies to them, call edit_file again.";
  } else if (found.length > 1) {
    body = `old_string now matches ${found.length} places (lines ${found
      .slice(0, 10)
      .map((at) => lineOf(text, at))
      .join(", ")}); read the file again (read_file) to see which one you mean.`;
  } else {
    const hint = oldString === "" ? undefined : closestHint(text, oldString);
    if (hint !== undefined) body = `old_string is no longer there. ${hint}`;
  }
  if (body === undefined || found.length > 1) {
    return new ToolFailure(
      "Conflict",
      `${head} ${body ?? "old_string is no longer there."} Read it again with read_file, then retry against the current content.`,
    );
  }
  markSeen();
  return new ToolFailure("Conflict", `${head} ${body}`);
}
