import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { defineTool, isErrno, ToolFailure, type ToolOutput } from "@bridle/core";
import { locateRipgrep, openInside } from "@bridle/tools-fs";
import { z } from "zod";
import { parseDottedPath } from "./dotted-path.js";
import { compileFilter, type Filter, filterSchema } from "./filters.js";
import { type JsonlSearchOptions, resolveSettings } from "./options.js";
import { type CandidateLine, ripgrepLineArgs, ripgrepLines } from "./ripgrep-lines.js";
import { renderRow } from "./snippet.js";

export interface JsonlRow {
  readonly file: string;
  readonly line: number;
  /** The row as shown to the model: projected, snippets cut, bounded. */
  readonly text: string;
}

export interface JsonlSearchDetails {
  readonly path: string;
  /** What ripgrep was asked for before any line was parsed (`^` when nothing narrows the search). */
  readonly prefilter: string;
  readonly rows: readonly JsonlRow[];
  /** Lines ripgrep handed over and this tool parsed. */
  readonly candidates: number;
  readonly malformed: number;
  readonly oversized: number;
  /** Up to five `file:line` places of malformed and oversized lines, to read them otherwise. */
  readonly skippedAt: readonly string[];
  readonly truncated: boolean;
  readonly timedOut: boolean;
}

const DEFAULT_GLOB = "*.{jsonl,ndjson}";
const MAX_FILTERS = 16;
const MAX_FIELDS = 32;
const MAX_SKIPPED_SHOWN = 5;
// A search of a large log reports how far it got this often (candidate lines parsed).
const PROGRESS_EVERY = 100_000;
const procFd = process.platform === "linux" && existsSync("/proc/self/fd");

/**
 * `jsonl_search`: rows of JSONL files (logs, transcripts, exports) that pass every filter, found by
 * ripgrep first (a literal every matching line must hold, taken from the filters) and then parsed and
 * checked here. Malformed lines are counted, never fatal; lines over the size limit are named, never read.
 */
export function createJsonlSearchTool(options: JsonlSearchOptions = {}) {
  const settings = resolveSettings(options);
  const inputSchema = z.object({
    path: z.string().optional().describe("JSONL file or folder to search (default: the workspace root)"),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe(`Files to search inside a folder (default "${DEFAULT_GLOB}")`),
    filters: z
      .array(filterSchema)
      .max(MAX_FILTERS)
      .optional()
      .describe("Conditions every returned row meets (all of them); each names a field and exactly one test"),
    text: z
      .string()
      .min(1)
      .optional()
      .describe("Regular expression (ripgrep syntax) the raw line must match, checked before parsing"),
    fields: z
      .array(z.string().min(1))
      .max(MAX_FIELDS)
      .optional()
      .describe("Dotted paths to show of each row (default: the whole row, long strings cut)"),
    ignore_case: z.boolean().optional().describe("contains, regex and text ignore case"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(settings.maxRows)
      .optional()
      .describe(`Most rows to return (default ${settings.defaultRows})`),
    after_line: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("With a single file as path: only rows after this line, to read on from an earlier result"),
  });
  return defineTool({
    name: "jsonl_search",
    description:
      "Search JSONL files (logs, transcripts, exports) for rows whose fields meet filters: equals, contains, regex, or a min/max range on a dotted path. " +
      "Returns file:line and the row (or the fields asked for), long strings cut to snippets; malformed lines are counted and skipped. " +
      "Honours .gitignore and skips the .git folder.",
    inputSchema,
    annotations: { read_only: true, idempotent: true },
    timeoutMs: settings.timeoutMs + 10_000,
    async execute(args, ctx): Promise<ToolOutput<JsonlSearchDetails>> {
      const ignoreCase = args.ignore_case ?? false;
      const filters = (args.filters ?? []).map((input) => compileFilter(input, ignoreCase));
      const projection = (args.fields ?? []).map((field) => {
        const path = parseDottedPath(field);
        if (!path)
          throw new ToolFailure("InvalidInput", `field "${field}" is not a dotted path such as user.id`);
        return { field, path };
      });
      if (args.text?.includes("\0")) throw new ToolFailure("InvalidInput", "text contains a NUL byte");
      const limit = args.limit ?? settings.defaultRows;
      const prefilter = choosePrefilter(args.text, filters);

      const { handle, real: target, stats } = await openInside(ctx.workspace, args.path ?? ".");
      const folder = stats.isDirectory();
      if (!folder && !stats.isFile()) {
        await handle.close();
        throw new ToolFailure("InvalidInput", `${args.path} is neither a file nor a folder`);
      }
      if (args.after_line !== undefined && folder) {
        await handle.close();
        throw new ToolFailure("InvalidInput", "after_line needs a single file as path, not a folder");
      }
      // rg reads through the opened descriptor (a folder as its working folder), so a link swapped in
      // after the workspace check cannot send it elsewhere.
      const held = procFd ? `/proc/${process.pid}/fd/${handle.fd}` : target;
      const place = (file: string) => (file === held ? target : resolve(target, file));
      const shownPath = ctx.workspace.display(target);

      const rows: JsonlRow[] = [];
      const skippedAt: string[] = [];
      let candidates = 0;
      let malformed = 0;
      let oversized = 0;
      let truncated = false;
      let outputChars = 0;
      const skip = (candidate: CandidateLine) => {
        if (skippedAt.length < MAX_SKIPPED_SHOWN) {
          skippedAt.push(`${ctx.workspace.display(place(candidate.file))}:${candidate.line}`);
        }
      };
      const onLine = (candidate: CandidateLine) => {
        if (args.after_line !== undefined && candidate.line <= args.after_line) return "more" as const;
        if (ctx.workspace.isSecret(place(candidate.file))) return "more" as const;
        candidates++;
        if (candidates % PROGRESS_EVERY === 0) ctx.progress({ candidates, rows: rows.length });
        if (candidate.text === undefined) {
          oversized++;
          skip(candidate);
          return "more" as const;
        }
        if (candidate.text.trim() === "") return "more" as const;
        let row: unknown;
        try {
          row = JSON.parse(candidate.text);
        } catch {
          malformed++;
          skip(candidate);
          return "more" as const;
        }
        if (!filters.every((filter) => filter.test(row))) return "more" as const;
        if (rows.length >= limit) {
          truncated = true;
          return "stop" as const;
        }
        const text = renderRow(row, projection, filters, settings);
        const file = ctx.workspace.display(place(candidate.file));
        outputChars += file.length + text.length + 12;
        if (outputChars > settings.maxOutputChars && rows.length > 0) {
          truncated = true;
          return "stop" as const;
        }
        rows.push({ file, line: candidate.line, text });
        return "more" as const;
      };

      let result: Awaited<ReturnType<typeof ripgrepLines>>;
      try {
        const binary = await locateRipgrep(settings.ripgrepPath);
        result = await ripgrepLines(
          binary,
          ripgrepLineArgs({
            ...prefilter,
            ignoreCase,
            maxLineBytes: settings.maxLineBytes,
            ...(folder ? { glob: args.glob ?? DEFAULT_GLOB } : { target: held }),
          }),
          { cwd: folder ? held : "/", timeoutMs: settings.timeoutMs, signal: ctx.signal, onLine },
        );
      } catch (error) {
        if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) {
          throw new ToolFailure("Conflict", `${args.path ?? "."} changed during the search; try again`);
        }
        throw error;
      } finally {
        await handle.close();
      }
      const nothingSearched = result.stderr.includes("No files were searched");
      if (
        result.exitCode === 2 &&
        candidates === 0 &&
        !result.timedOut &&
        !nothingSearched &&
        !result.stopped
      ) {
        throw new ToolFailure(
          "InvalidInput",
          `jsonl_search could not search: ${result.stderr.trim() || "ripgrep failed"}`,
        );
      }
      if (result.timedOut && rows.length === 0) {
        throw new ToolFailure(
          "Timeout",
          `jsonl_search found no row within ${settings.timeoutMs / 1000} s and was stopped. Add a filter with a distinctive string value, or narrow path.`,
        );
      }
      const details: JsonlSearchDetails = {
        path: shownPath,
        prefilter: prefilter.pattern,
        rows,
        candidates,
        malformed,
        oversized,
        skippedAt,
        truncated,
        timedOut: result.timedOut,
      };
      return {
        content: describe(details, { folder, limit, nothingSearched, maxLineBytes: settings.maxLineBytes }),
        details,
      };
    },
  });
}

export type JsonlSearchTool = ReturnType<typeof createJsonlSearchTool>;

/** The one pattern ripgrep gets: the model's text, else the longest literal a filter guarantees, else every line. */
function choosePrefilter(
  text: string | undefined,
  filters: readonly Filter[],
): { pattern: string; fixed: boolean } {
  if (text !== undefined) return { pattern: text, fixed: false };
  let best = "";
  for (const filter of filters)
    if (filter.literal && filter.literal.length > best.length) best = filter.literal;
  return best === "" ? { pattern: "^", fixed: false } : { pattern: best, fixed: true };
}

function describe(
  details: JsonlSearchDetails,
  context: { folder: boolean; limit: number; nothingSearched: boolean; maxLineBytes: number },
): string {
  const lines = details.rows.map((row) => `${row.file}:${row.line} ${row.text}`);
  const where = details.path === "." ? "the workspace" : details.path;
  if (details.rows.length === 0) {
    lines.push(
      context.nothingSearched
        ? `No JSONL file was searched in ${where}: none matches the glob, or all are ignored (.gitignore, .git).`
        : `No rows match in ${where}.`,
    );
  }
  const files = new Set(details.rows.map((row) => row.file)).size;
  lines.push(
    "",
    `${details.rows.length} row${details.rows.length === 1 ? "" : "s"}${files > 1 ? ` from ${files} files` : ""}; ${details.candidates.toLocaleString("en-US")} candidate line${details.candidates === 1 ? "" : "s"} parsed.`,
  );
  if (details.malformed > 0 || details.oversized > 0) {
    const parts: string[] = [];
    if (details.malformed > 0) parts.push(`${details.malformed} malformed (not JSON)`);
    if (details.oversized > 0)
      parts.push(`${details.oversized} over ${Math.round(context.maxLineBytes / 1024)} KiB`);
    lines.push(`[Skipped ${parts.join(" and ")} lines, e.g. ${details.skippedAt.join(", ")}.]`);
  }
  if (details.truncated) {
    const last = details.rows.at(-1);
    lines.push(
      context.folder || !last
        ? `[Stopped at ${details.rows.length} rows; more match. Search one file to read on with after_line, or add filters.]`
        : `[Stopped at ${details.rows.length} rows; more match. Read on with after_line=${last.line}.]`,
    );
  }
  if (details.timedOut) lines.push("[The search was stopped by its time limit; results are partial.]");
  return lines.join("\n");
}
