import { resolve } from "node:path";
import { defineTool, isErrno, ToolFailure, type ToolOutput } from "@bridle/core";
import { z } from "zod";
import { changedUnder, throughDescriptorFor } from "./descriptor.js";
import { openInside } from "./open-inside.js";
import type { FsSettings } from "./options.js";
import { formatCount } from "./paths.js";
import { locateRipgrep } from "./ripgrep.js";
import { type GrepLine, ripgrepArgs, runRipgrep } from "./ripgrep-run.js";

export interface GrepDetails {
  readonly pattern: string;
  readonly path: string;
  readonly matches: readonly GrepLine[];
  /** Lines around matches, when context was asked for. */
  readonly context: readonly GrepLine[];
  readonly files: number;
  readonly truncated: boolean;
  readonly timedOut: boolean;
}

const MAX_GREP_LINE_CHARS = 500;

/** "10 MiB" when the limit is whole mebibytes (shorter in every request), else the exact bytes. */
const byteSize = (bytes: number) =>
  bytes % 1_048_576 === 0 ? `${bytes / 1_048_576} MiB` : `${formatCount(bytes)} bytes`;
const MAX_CONTEXT = 10;

export function createGrepTool(settings: FsSettings) {
  const inputSchema = z.object({
    pattern: z.string().min(1).describe("Rust regex; (?i) ignores case"),
    path: z.string().optional().describe("file or folder"),
    include: z.string().optional().describe('glob, e.g. "*.ts"'),
    max_matches: z
      .number()
      .int()
      .min(1)
      .max(settings.grepMaxMatches)
      .optional()
      .describe(`default ${settings.grepDefaultMatches}`),
    context: z.number().int().min(0).max(MAX_CONTEXT).optional().describe("lines"),
  });
  return defineTool({
    name: "grep",
    description:
      "Search files by regex: path:line:text. " +
      `Skips .git, .gitignored, binary and >${byteSize(settings.grepMaxFileBytes)} files.`,
    inputSchema,
    annotations: { read_only: true, idempotent: true },
    timeoutMs: settings.grepTimeoutMs + 10_000,
    async execute(args, ctx): Promise<ToolOutput<GrepDetails>> {
      if (args.pattern.includes("\0")) throw new ToolFailure("InvalidInput", "pattern contains a NUL byte");
      // rg starts from the opened, checked folder (its working folder is that folder's descriptor) or
      // reads the opened file through its descriptor, so a link swapped in after the check cannot point
      // it elsewhere; inside the walk rg follows no links.
      const { handle, real: target, stats } = await openInside(ctx.workspace, args.path ?? ".");
      const folder = stats.isDirectory();
      const held = throughDescriptorFor(handle, target);
      const place = (file: string) => (file === held ? target : resolve(target, file));
      let result: Awaited<ReturnType<typeof runRipgrep>>;
      try {
        const binary = await locateRipgrep(settings.ripgrepPath);
        result = await runRipgrep(
          binary,
          ripgrepArgs({
            pattern: args.pattern,
            ...(folder ? {} : { target: held }),
            ...(args.include === undefined ? {} : { include: args.include }),
            context: args.context ?? 0,
            maxFileBytes: settings.grepMaxFileBytes,
          }),
          {
            // A file is read through its descriptor path; the working folder then does not matter.
            cwd: folder ? held : "/",
            maxMatches: args.max_matches ?? settings.grepDefaultMatches,
            maxLineChars: MAX_GREP_LINE_CHARS,
            timeoutMs: settings.grepTimeoutMs,
            signal: ctx.signal,
            accept: (file) => !ctx.workspace.isSecret(place(file)),
          },
        );
      } catch (error) {
        // The held folder's descriptor path is the working folder: a spawn that cannot enter it means
        // the folder went away during the call.
        if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) throw changedUnder(args.path ?? ".");
        throw error;
      } finally {
        await handle.close();
      }
      // rg exits 2 both for a bad pattern and when every file was filtered out; only the first is the model's to fix.
      const nothingSearched = result.stderr.includes("No files were searched");
      if (result.exitCode === 2 && result.matches.length === 0 && !result.timedOut && !nothingSearched) {
        const message = result.stderr.trim() || "ripgrep failed";
        throw new ToolFailure("InvalidInput", `grep could not search: ${message}`);
      }
      if (result.timedOut && result.matches.length === 0) {
        throw new ToolFailure(
          "Timeout",
          `grep found nothing within ${settings.grepTimeoutMs / 1000} s and was stopped. Search a narrower path, or filter files with include.`,
        );
      }
      const shownPath = ctx.workspace.display(target);
      const display = (file: string) => ctx.workspace.display(place(file));
      const matches = result.matches.map((entry) => ({ ...entry, file: display(entry.file) })).sort(byPlace);
      const context = result.context.map((entry) => ({ ...entry, file: display(entry.file) })).sort(byPlace);
      const files = new Set(matches.map((entry) => entry.file)).size;
      const lines: string[] = [];
      if (matches.length === 0) {
        lines.push(`No matches for /${args.pattern}/ in ${shownPath === "." ? "the workspace" : shownPath}.`);
        if (nothingSearched) {
          lines.push(
            "No file was searched: every file there is ignored (.gitignore, .git, binary, size limit) or excluded by include.",
          );
        }
      } else {
        const shown = withinChars(formatLines(matches, context), settings.maxReadChars);
        lines.push(...shown.lines);
        if (shown.dropped > 0) {
          lines.push(
            `[${formatCount(shown.dropped)} more output lines not shown (over ${formatCount(settings.maxReadChars)} characters). Narrow the search.]`,
          );
        }
        lines.push(
          "",
          `${formatCount(matches.length)} matching line${matches.length === 1 ? "" : "s"} in ${formatCount(files)} file${files === 1 ? "" : "s"}.`,
        );
      }
      if (result.truncated) {
        lines.push(
          `[Stopped at max_matches=${matches.length}; more matches exist. Narrow the pattern, path or include, or raise max_matches.]`,
        );
      }
      if (result.timedOut) {
        lines.push(
          `[The search took longer than ${settings.grepTimeoutMs / 1000} s and was stopped; results are partial. Narrow the path or include.]`,
        );
      }
      return {
        content: lines.join("\n"),
        details: {
          pattern: args.pattern,
          path: shownPath,
          matches,
          context,
          files,
          truncated: result.truncated,
          timedOut: result.timedOut,
        },
      };
    },
  });
}

function byPlace(a: GrepLine, b: GrepLine): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line;
}

/** ripgrep's own layout: `file:line:text` for matches, `file-line-text` for context, `--` between groups. */
function formatLines(matches: readonly GrepLine[], context: readonly GrepLine[]): string[] {
  if (context.length === 0) return matches.map((entry) => `${entry.file}:${entry.line}:${entry.text}`);
  const all = [
    ...matches.map((entry) => ({ ...entry, match: true })),
    ...context.map((entry) => ({ ...entry, match: false })),
  ].sort(byPlace);
  const out: string[] = [];
  let previous: GrepLine | undefined;
  for (const entry of all) {
    if (previous && (previous.file !== entry.file || entry.line > previous.line + 1)) out.push("--");
    out.push(`${entry.file}${entry.match ? ":" : "-"}${entry.line}${entry.match ? ":" : "-"}${entry.text}`);
    previous = entry;
  }
  return out;
}

/** The leading lines that fit in `max` characters, and how many did not. */
function withinChars(lines: readonly string[], max: number): { lines: string[]; dropped: number } {
  let used = 0;
  for (let index = 0; index < lines.length; index++) {
    used += (lines[index] as string).length + 1;
    if (used > max) return { lines: lines.slice(0, index), dropped: lines.length - index };
  }
  return { lines: [...lines], dropped: 0 };
}
