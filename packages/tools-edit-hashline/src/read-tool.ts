import { argumentAliases, defineTool, ToolFailure } from "@bridle/core";
import { z } from "zod";
import { loadTextFile } from "./load-file.js";
import type { ResolvedOptions } from "./options.js";
import { renderLines } from "./render.js";

export const readFileSchema = z.strictObject({
  path: z.string().min(1).describe("file"),
  offset: z.number().int().min(1).optional().describe("1-based first line"),
  limit: z.number().int().min(1).optional().describe("default 2000"),
});

export interface HashlineReadDetails {
  readonly path: string;
  readonly totalLines: number;
  /** First and last line shown, 1-based. */
  readonly startLine: number;
  readonly endLine: number;
  /** Whether lines after endLine were left out. */
  readonly truncated: boolean;
  readonly nextOffset: number | undefined;
  readonly linesCut: number;
  readonly encoding: "utf8" | "latin1";
}

export function createReadTool(options: ResolvedOptions) {
  return defineTool<typeof readFileSchema, HashlineReadDetails>({
    name: "read_file",
    description: "Read a text file as `<line> <tag> | <text>` lines; edits cite these tags.",
    inputSchema: readFileSchema,
    prepareArguments: argumentAliases({ filePath: "path" }),
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx) {
      const file = await loadTextFile(ctx.workspace, args.path, options.maxFileBytes, ctx.signal);
      const { doc } = file;
      const total = doc.count;
      const start = args.offset ?? 1;
      if (start > total) {
        throw new ToolFailure(
          "InvalidInput",
          `offset ${start} is past the end: ${file.shown} has ${total} line${total === 1 ? "" : "s"}`,
        );
      }
      const wanted = Math.min(total, start - 1 + (args.limit ?? options.defaultLimit));
      const page = renderLines(
        doc,
        start,
        wanted,
        doc.encoding,
        options.maxLineChars,
        options.maxOutputChars,
      );
      const end = start + page.lines.length - 1;
      options.tracker.remember(ctx.runId, file.realPath, file.snapshot);
      options.tags.saw(ctx.runId, file.realPath, page.shown);

      const out = page.lines;
      const notes: string[] = [];
      const truncated = end < total;
      if (truncated) {
        notes.push(
          `[lines ${start}-${end} of ${total} shown; call read_file with offset=${end + 1} to continue]`,
        );
      } else if (start > 1) {
        notes.push(`[lines ${start}-${end} of ${total} shown; end of file]`);
      }
      if (page.cut > 0)
        notes.push(
          `[${page.cut} long line${page.cut === 1 ? " was" : "s were"} cut; tags cover whole lines]`,
        );
      if (doc.encoding === "latin1") {
        notes.push(
          "[not valid UTF-8: each byte is shown as one character (Latin-1), and edits are written the same way]",
        );
      }
      if (doc.empty) notes.push("[empty file: replace line 1 to give it content]");
      return {
        content: notes.length === 0 ? out.join("\n") : `${out.join("\n")}\n${notes.join("\n")}`,
        details: {
          path: file.shown,
          totalLines: total,
          startLine: start,
          endLine: end,
          truncated,
          nextOffset: truncated ? end + 1 : undefined,
          linesCut: page.cut,
          encoding: doc.encoding,
        },
      };
    },
  });
}
