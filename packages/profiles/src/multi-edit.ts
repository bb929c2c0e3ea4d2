import {
  type AnyTool,
  defineTool,
  type FileDiff,
  fileDiff,
  ToolFailure,
  type ToolOutput,
} from "@bridle/core";
import {
  decodeText,
  encodeText,
  type FileTracker,
  looksBinary,
  planTextEdit,
  updateFile,
  wholeToolScope,
} from "@bridle/tools-fs";
import { z } from "zod";

const MAX_EDIT_BYTES = 64 * 1024 * 1024;

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
  /** The change as a line diff, for front doors to draw. */
  readonly diffs: readonly FileDiff[];
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
      "Each old_string must match exactly one place (whitespace included) unless replace_all is true; each edit is matched and checked as Edit does.",
    inputSchema: multiEditSchema,
    annotations: { destructive: true },
    sequential: true,
    approvalScope: (args) => wholeToolScope("MultiEdit", `edits ${args.file_path}`),
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
          const repairs: string[] = [];
          args.edits.forEach((edit, index) => {
            // edit_file's own matcher and recovery rules, applied to the result of the edits before.
            try {
              const plan = planTextEdit(next, format, {
                oldString: edit.old_string,
                newString: edit.new_string,
                replaceAll: edit.replace_all ?? false,
              });
              next = plan.text;
              replacements += plan.starts.length;
              repairs.push(...plan.repairs.map((repair) => `edit ${index + 1}: ${repair}`));
            } catch (error) {
              if (!(error instanceof ToolFailure)) throw error;
              const after = index > 0 ? " (after the edits before it)" : "";
              throw new ToolFailure(
                error.kind,
                `edit ${index + 1} of ${args.edits.length}${after}, so nothing was changed: ${error.message}`,
                { details: error.details },
              );
            }
          });
          const bytes = encodeText(next, format);
          return {
            bytes,
            value: {
              content: `Edited ${shown}: ${args.edits.length} edit${args.edits.length === 1 ? "" : "s"}, ${replacements} replacement${replacements === 1 ? "" : "s"}.${repairs.length > 0 ? ` Note: ${repairs.join("; ")}.` : ""}`,
              details: {
                path: shown,
                edits: args.edits.length,
                replacements,
                diffs: [fileDiff(shown, text, next)],
              },
            },
          };
        },
      );
    },
  });
}
