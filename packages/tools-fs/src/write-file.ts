import {
  argumentAliases,
  defineTool,
  type FileDiff,
  fileDiff,
  ToolFailure,
  type ToolOutput,
} from "@bridle/core";
import { z } from "zod";
import type { FsSettings } from "./options.js";
import { formatCount } from "./paths.js";
import { decodeText, encodeText, looksBinary, type TextFormat, withLineEndings } from "./text-format.js";
import { updateFile } from "./update-file.js";
import { wholeToolScope } from "./whole-tool-scope.js";

export interface WriteFileDetails {
  readonly path: string;
  readonly created: boolean;
  readonly bytes: number;
  readonly lines: number;
  /** The change as a line diff, for front doors to draw (empty when a binary file was overwritten). */
  readonly diffs: readonly FileDiff[];
}

const inputSchema = z.object({
  path: z.string().min(1).describe("folders are made"),
  content: z.string().describe("text"),
});

const PLAIN_UTF8: TextFormat = { encoding: "utf8", bom: false, eol: "lf", finalNewline: false };

export function createWriteFileTool(settings: FsSettings) {
  return defineTool({
    name: "write_file",
    description:
      "Write a whole file, new or read in this run and unchanged since; prefer edits for small changes.",
    inputSchema,
    // Spellings other agents' tools taught models (OpenCode's filePath).
    prepareArguments: argumentAliases({ filePath: "path" }),
    annotations: { destructive: true, idempotent: true },
    sequential: true,
    approvalScope: (args) => wholeToolScope("write_file", `writes ${args.path}`),
    async execute(args, ctx): Promise<ToolOutput<WriteFileDetails>> {
      if (args.content.length > settings.maxEditBytes) {
        throw new ToolFailure(
          "InvalidInput",
          `content is larger than the ${formatCount(settings.maxEditBytes)} bytes write_file accepts`,
        );
      }
      const lines =
        args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
      return updateFile(
        ctx.workspace,
        args.path,
        {
          create: true,
          maxBytes: settings.maxEditBytes,
          requireBytes: false,
          tracker: settings.tracker,
          runId: ctx.runId,
          signal: ctx.signal,
        },
        ({ real, shown, current }) => {
          const bytes = encodeLike(args.content, current?.bytes);
          // A durable run repeating this call after a crash finds its own earlier write: the file already
          // holds exactly these bytes, so writing them again changes nothing the model did not ask for.
          const ownEarlierWrite = ctx.repeated === true && current?.bytes?.equals(bytes) === true;
          if (!ownEarlierWrite) settings.tracker.assertUnchanged(ctx.runId, real, current?.snapshot, shown);
          const created = current === undefined;
          const before = current?.bytes;
          const diffs =
            before && looksBinary(before)
              ? []
              : [
                  fileDiff(shown, before ? decodeText(before).text : "", decodeText(bytes).text, {
                    change: created ? "add" : "update",
                  }),
                ];
          return {
            bytes,
            value: {
              content: `${created ? "Created" : "Overwrote"} ${shown} (${formatCount(bytes.length)} bytes, ${formatCount(lines)} lines).`,
              details: { path: shown, created, bytes: bytes.length, lines, diffs },
            },
          };
        },
      );
    },
  });
}

/** New content in the stored form of the file it replaces: same encoding, BOM and line endings. */
function encodeLike(content: string, previous: Buffer | undefined): Buffer {
  if (!previous || previous.length === 0 || looksBinary(previous)) return encodeText(content, PLAIN_UTF8);
  const { format } = decodeText(previous);
  const text = format.eol === "crlf" ? withLineEndings(content, "crlf") : content;
  try {
    return encodeText(text, format);
  } catch {
    // A Latin-1 file rewritten with characters Latin-1 lacks becomes UTF-8 as a whole.
    return encodeText(text, { ...format, encoding: "utf8", bom: false });
  }
}
