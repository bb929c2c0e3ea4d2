import { defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import { z } from "zod";
import { lineOf, planEdit } from "./edit-match.js";
import type { FsSettings } from "./options.js";
import { decodeText, encodeText, looksBinary } from "./text-format.js";
import { updateFile } from "./update-file.js";

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
}

const inputSchema = z.object({
  path: z.string().describe("File to edit, relative to the workspace root"),
  old_string: z.string().describe("Exact text to replace, including whitespace and indentation"),
  new_string: z.string().describe("Text to put in its place"),
  replace_all: z
    .boolean()
    .optional()
    .describe("Replace every occurrence (default false: old_string must match exactly one place)"),
});

const SNIPPET_CONTEXT = 2;
const MAX_SNIPPETS = 3;
const MAX_SNIPPET_LINES = 30;
const MAX_HUNK_CHARS = 4_000;

export function createEditFileTool(settings: FsSettings) {
  return defineTool({
    name: "edit_file",
    description:
      "Replace exact text in a file. old_string must match the file exactly (whitespace included) and, unless replace_all is true, in exactly one place. " +
      "Read the file in this run first; if it changed on disk since, read it again. Line endings, BOM, encoding and the final newline are kept.",
    inputSchema,
    annotations: { destructive: true },
    sequential: true,
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
          settings.tracker.assertUnchanged(ctx.runId, real, current.snapshot, shown);
          const { text, format } = decodeText(before);
          const plan = planEdit(text, format, args.old_string, args.new_string, args.replace_all ?? false);
          const bytes = encodeText(plan.text, format);
          return { bytes, value: report(shown, plan, before.length, bytes.length) };
        },
      );
    },
  });
}

function report(
  shown: string,
  plan: ReturnType<typeof planEdit>,
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
