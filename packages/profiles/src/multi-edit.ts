import { type AnyTool, defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import {
  decodeText,
  encodeText,
  type FileTracker,
  looksBinary,
  updateFile,
  withLineEndings,
} from "@bridle/tools-fs";
import { z } from "zod";

const MAX_EDIT_BYTES = 64 * 1024 * 1024;
const MAX_SHOWN = 120;

const multiEditSchema = z.object({
  file_path: z.string().min(1).describe("The file, relative to the workspace root or absolute inside it"),
  edits: z
    .array(
      z.object({
        old_string: z.string().min(1).describe("The exact text to replace"),
        new_string: z.string().describe("The text to replace it with"),
        replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
      }),
    )
    .min(1)
    .max(100)
    .describe("Edits applied in order, each to the result of the one before; all succeed or none is applied"),
});

export interface MultiEditDetails {
  readonly path: string;
  readonly edits: number;
  readonly replacements: number;
}

/**
 * `MultiEdit`: several exact replacements in one file, all or nothing. It changes the file the way
 * edit_file does (tools-fs's updateFile: the workspace policy, the per-file lock, the read-before-write
 * rule through the shared tracker, an atomic replace that keeps encoding, BOM and line endings).
 */
export function createMultiEditTool(tracker: FileTracker): AnyTool {
  return defineTool({
    name: "MultiEdit",
    description:
      "Make several exact text replacements in one file at once; they apply in order, and if any fails none is applied. Read the file first. " +
      "Each old_string must match exactly one place (whitespace included) unless replace_all is true.",
    inputSchema: multiEditSchema,
    annotations: { destructive: true },
    sequential: true,
    async execute(args, ctx): Promise<ToolOutput<MultiEditDetails>> {
      return updateFile(
        ctx.workspace,
        args.file_path,
        {
          create: false,
          maxBytes: MAX_EDIT_BYTES,
          requireBytes: true,
          tracker,
          runId: ctx.runId,
          signal: ctx.signal,
        },
        ({ real, shown, current }) => {
          const before = current?.bytes;
          if (!current || !before) throw new ToolFailure("NotFound", `${shown}: no such file`);
          if (looksBinary(before)) throw new ToolFailure("InvalidInput", `${shown} is a binary file`);
          tracker.assertUnchanged(ctx.runId, real, current.snapshot, shown);
          const { text, format } = decodeText(before);
          let next = text;
          let replacements = 0;
          args.edits.forEach((edit, index) => {
            const which = `edit ${index + 1} of ${args.edits.length}`;
            const eol = (value: string) => (format.eol === "crlf" ? withLineEndings(value, "crlf") : value);
            const search = eol(edit.old_string);
            const replacement = eol(edit.new_string);
            if (search === replacement) {
              throw new ToolFailure(
                "InvalidInput",
                `${which}: old_string and new_string are the same; nothing was changed`,
              );
            }
            const count = next.split(search).length - 1;
            if (count === 0) {
              throw new ToolFailure(
                "InvalidInput",
                `${which}: old_string ${preview(edit.old_string)} is not in ${shown}${index > 0 ? " (after the edits before it)" : ""}; nothing was changed. Read the file again, or use Edit for one change at a time.`,
              );
            }
            if (count > 1 && !edit.replace_all) {
              throw new ToolFailure(
                "InvalidInput",
                `${which}: old_string ${preview(edit.old_string)} matches ${count} places in ${shown}; nothing was changed. Add surrounding lines to make it unique, or set replace_all.`,
              );
            }
            next = next.split(search).join(replacement);
            replacements += count;
          });
          const bytes = encodeText(next, format);
          return {
            bytes,
            value: {
              content: `Edited ${shown}: ${args.edits.length} edit${args.edits.length === 1 ? "" : "s"}, ${replacements} replacement${replacements === 1 ? "" : "s"}.`,
              details: { path: shown, edits: args.edits.length, replacements },
            },
          };
        },
      );
    },
  });
}

function preview(text: string): string {
  const shown = JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
  return shown;
}
