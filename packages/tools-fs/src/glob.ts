import { realpath, stat } from "node:fs/promises";
import { sep } from "node:path";
import type { Readable } from "node:stream";
import { defineTool, isWithin, ToolFailure, type ToolOutput, type Workspace } from "@bridle/core";
import fg from "fast-glob";
import { z } from "zod";
import { GitignoreFilter } from "./gitignore.js";
import type { FsSettings } from "./options.js";
import { formatCount, resolveExistingOrSuggest } from "./paths.js";
import { checkedWalkFs } from "./walk-fs.js";

export interface GlobDetails {
  readonly pattern: string;
  readonly path: string;
  readonly files: readonly string[];
  readonly truncated: boolean;
}

const inputSchema = z.object({
  pattern: z.string().min(1).describe('e.g. "src/**/*.ts"'),
  path: z.string().optional().describe("folder (default: the root)"),
});

export function createGlobTool(settings: FsSettings) {
  return defineTool({
    name: "glob",
    description:
      `Find files by glob (*, **, ?, [abc], {a,b}); sorted paths, at most ${settings.maxGlobResults}. ` +
      "Skips .gitignored files and .git.",
    inputSchema,
    annotations: { read_only: true, idempotent: true },
    timeoutMs: 60_000,
    async execute(args, ctx): Promise<ToolOutput<GlobDetails>> {
      const pattern = checkPattern(args.pattern);
      const base = await resolveExistingOrSuggest(ctx.workspace, args.path ?? ".");
      if (!(await stat(base)).isDirectory()) {
        throw new ToolFailure("InvalidInput", `${args.path} is a file; path must be a folder to search in`);
      }
      const { files, truncated } = await findFiles(
        ctx.workspace,
        base,
        pattern,
        settings.maxGlobResults,
        ctx.signal,
      );
      const shownBase = ctx.workspace.display(base);
      const lines =
        files.length === 0
          ? [`No files match ${args.pattern} in ${shownBase === "." ? "the workspace" : shownBase}.`]
          : [...files];
      if (truncated) {
        lines.push(
          "",
          `[Stopped at ${formatCount(settings.maxGlobResults)} files; more match. Narrow the pattern or the path.]`,
        );
      }
      return {
        content: lines.join("\n"),
        details: { pattern: args.pattern, path: shownBase, files, truncated },
      };
    },
  });
}

function checkPattern(pattern: string): string {
  const trimmed = pattern.trim().replace(/^\.\//, "");
  if (trimmed.startsWith("/") || /^[A-Za-z]:[\\/]/.test(trimmed)) {
    throw new ToolFailure("InvalidInput", "pattern must be relative; choose the folder to search with path");
  }
  if (trimmed.split("/").includes("..")) {
    throw new ToolFailure(
      "InvalidInput",
      "pattern must not contain '..'; choose the folder to search with path",
    );
  }
  if (trimmed.includes("\0")) throw new ToolFailure("InvalidInput", "pattern contains a NUL byte");
  return trimmed;
}

/**
 * Walk `base` for files matching `pattern`, honouring .gitignore, and stop once `max` are found. Symbolic
 * links are not followed, and every folder is listed through a descriptor checked to be inside the
 * workspace, so neither a link nor a folder swapped for one mid-walk can lead the walk out of it.
 */
export async function findFiles(
  workspace: Workspace,
  base: string,
  pattern: string,
  max: number,
  signal: AbortSignal,
): Promise<{ files: string[]; truncated: boolean }> {
  const roots = await Promise.all(workspace.roots.map((root) => realpath(root).catch(() => root)));
  const top = roots.find((root) => isWithin(root, base)) ?? base;
  const gitignore = new GitignoreFilter(top);
  const stream = fg.stream(pattern, {
    cwd: base,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    fs: checkedWalkFs(workspace) as unknown as Partial<fg.FileSystemAdapter>,
    // Only alternatives ({a,b}, @(a|b)) can yield a path twice; de-duplication costs a third of the walk.
    unique: /[{(]/.test(pattern),
    ignore: ["**/.git/**", ...gitignore.pruneGlobs(base)],
  }) as Readable;
  // fast-glob yields posix paths relative to base; display paths are then a prefix away.
  const shownBase = workspace.display(base);
  const prefix = shownBase === "." ? "" : `${shownBase}${sep}`;
  const files: string[] = [];
  let truncated = false;
  // Events, not `for await`: the async iterator costs a promise per entry, several times the walk itself.
  await new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      stream.destroy();
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = () => finish(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    stream.on("data", (entry: unknown) => {
      if (done) return;
      const rel = String(entry);
      const slash = rel.lastIndexOf("/");
      // Entries come normalized and relative to base: plain concatenation is enough, and cheap.
      const folder = slash === -1 ? base : `${base}${sep}${rel.slice(0, slash)}`;
      if (gitignore.ignoresIn(folder, `${base}${sep}${rel}`)) return;
      if (files.length >= max) {
        truncated = true;
        finish();
        return;
      }
      files.push(prefix + (sep === "/" ? rel : rel.split("/").join(sep)));
    });
    stream.on("error", finish);
    stream.on("end", () => finish());
  });
  files.sort();
  return { files, truncated };
}
