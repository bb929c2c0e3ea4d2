import { join } from "node:path";
import { type AnyTool, defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import type { GrepDetails, ListDirDetails } from "@bridle/tools-fs";
import { z } from "zod";
import { adaptTool } from "./adapt.js";
import { bashText, parseBashResult } from "./bash-result.js";
import { argvToCommand } from "./shell-words.js";

// Codex's tool shapes, as its models were trained to call them.

const shellSchema = z.object({
  command: z.array(z.string()).min(1).describe('argv, e.g. ["bash", "-lc", "npm test"]'),
  workdir: z.string().min(1).optional().describe("folder to run in"),
  timeout_ms: z.number().int().positive().optional(),
});

/** The escalation request, as Codex names it; the fields are the bash tool's own, so there is one definition. */
interface Escalation {
  readonly sandbox_permissions?: "use_default" | "require_escalated";
  readonly justification?: string;
}

const ESCALATION_FIELDS = ["sandbox_permissions", "justification"] as const;

/**
 * `shell`'s schema: Codex's argv shape, plus the escalation fields when the bash tool under it takes them
 * (a bash without a sandbox to leave offers none).
 */
function shellSchemaFor(bash: AnyTool): z.ZodType<z.output<typeof shellSchema> & Escalation> {
  const shape = (bash.inputSchema as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const fields = Object.fromEntries(
    ESCALATION_FIELDS.flatMap((name) => (shape[name] ? [[name, shape[name]]] : [])),
  );
  return shellSchema.extend(fields) as unknown as z.ZodType<z.output<typeof shellSchema> & Escalation>;
}

/** `shell` over the bash tool: argv in, Codex's "Exit code / Wall time / Output" text out. */
export function codexShell(bash: AnyTool): AnyTool {
  return adaptTool(bash, {
    name: "shell",
    description:
      'Run argv in the workspace, usually ["bash", "-lc", "<script>"]; returns the exit code (non-zero is normal), ' +
      "wall time, stdout then stderr. The command policy and sandbox apply.",
    inputSchema: shellSchemaFor(bash),
    toArgs: (args) => ({
      command: argvToCommand(args.command),
      ...(args.workdir === undefined ? {} : { cwd: args.workdir }),
      ...(args.timeout_ms === undefined ? {} : { timeout_ms: args.timeout_ms }),
      ...(args.sandbox_permissions === undefined ? {} : { sandbox_permissions: args.sandbox_permissions }),
      ...(args.justification === undefined ? {} : { justification: args.justification }),
    }),
    result: (output) => {
      const result = parseBashResult(output);
      if (!result) return output;
      const seconds = typeof result.durationMs === "number" ? (result.durationMs / 1000).toFixed(1) : "?";
      const text = [
        `Exit code: ${result.exit_code}`,
        `Wall time: ${seconds} seconds`,
        "Output:",
        bashText(result),
      ];
      return { ...output, content: text.join("\n") };
    },
  });
}

const readSchema = z.object({
  file_path: z.string().min(1).describe("workspace-relative"),
  offset: z.number().int().min(1).optional().describe("1-based first line"),
  limit: z.number().int().min(1).optional().describe("default 2000"),
});

/** `read_file` in Codex's shape: `file_path`, and every line as `L<n>: text`. */
export function codexReadFile(readFile: AnyTool): AnyTool {
  return adaptTool(readFile, {
    name: "read_file",
    description:
      "Read a text file, each line shown as L<number>: text; offset and limit page through a long file.",
    inputSchema: readSchema,
    toArgs: ({ file_path, ...rest }) => ({ path: file_path, ...rest }),
    result: (output) => {
      if (typeof output.content !== "string") return output;
      return { ...output, content: output.content.replace(/^ *(\d+)\t/gm, "L$1: ") };
    },
  });
}

/** `read_file` with Codex's argument names over another reader (hashline's, whose tags must stay). */
export function codexNamedRead(readFile: AnyTool): AnyTool {
  return adaptTool(readFile, {
    name: "read_file",
    inputSchema: readSchema,
    toArgs: ({ file_path, ...rest }) => ({ path: file_path, ...rest }),
  });
}

const grepFilesSchema = z.object({
  pattern: z.string().min(1).describe("Rust regex"),
  include: z.string().optional().describe('glob, e.g. "*.rs"'),
  path: z.string().optional().describe("folder or file (default root)"),
  limit: z.number().int().min(1).max(2_000).optional().describe("default 100"),
});

/** `grep_files`: the paths of files whose content matches, one per line (Codex's shape). */
export function codexGrepFiles(grep: AnyTool): AnyTool {
  return adaptTool(grep, {
    name: "grep_files",
    description: "Files whose contents match a regex (ripgrep; honours .gitignore), one path per line.",
    inputSchema: grepFilesSchema,
    toArgs: (args) => ({
      pattern: args.pattern,
      ...(args.path === undefined ? {} : { path: args.path }),
      ...(args.include === undefined ? {} : { include: args.include }),
      max_matches: 2_000,
    }),
    result: (output, args) => {
      const details = output.details as GrepDetails | undefined;
      if (!details) return output;
      const limit = args.limit ?? 100;
      const files = [...new Set(details.matches.map((match) => match.file))];
      const lines = files.length === 0 ? ["No matches found."] : files.slice(0, limit);
      if (files.length > limit || details.truncated)
        lines.push(`[More files may match; narrow the pattern, path or include.]`);
      return { ...output, content: lines.join("\n") };
    },
  });
}

const listDirSchema = z.object({
  dir_path: z.string().min(1).describe('"." for the root'),
  offset: z.number().int().min(1).optional().describe("1-based first entry"),
  limit: z.number().int().min(1).max(1_000).optional().describe("default 25"),
  depth: z.number().int().min(1).max(10).optional().describe("levels (default 2)"),
});

/**
 * `list_dir` in Codex's shape: a tree to `depth` levels, folders marked `/` and links `@`, paged by
 * offset and limit. Each folder is listed by the filesystem list_dir (the same policy and checks).
 */
export function codexListDir(listDir: AnyTool): AnyTool {
  return defineTool({
    name: "list_dir",
    description:
      "List a folder as an indented tree (folders end in /, links in @), paged by offset and limit.",
    inputSchema: listDirSchema,
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx): Promise<ToolOutput> {
      const offset = args.offset ?? 1;
      const limit = args.limit ?? 25;
      const depth = args.depth ?? 2;
      const wanted = offset - 1 + limit;
      const lines: string[] = [];
      let more = false;
      const root = (await listDir.execute({ path: args.dir_path }, ctx)).details as ListDirDetails;
      const walk = async (folder: string, listing: ListDirDetails, level: number): Promise<void> => {
        for (const entry of listing.entries) {
          if (lines.length >= wanted) {
            more = true;
            return;
          }
          const mark =
            entry.kind === "dir" ? "/" : entry.kind === "symlink" ? "@" : entry.kind === "file" ? "" : "?";
          lines.push(`${"  ".repeat(level)}${entry.name}${mark}`);
          if (entry.kind !== "dir" || level + 1 >= depth) continue;
          const child = join(folder, entry.name);
          try {
            const inner = (await listDir.execute({ path: child }, ctx)).details as ListDirDetails;
            await walk(child, inner, level + 1);
          } catch (error) {
            // A folder the policy refuses (.ssh) or that vanished is shown, not entered.
            if (!(error instanceof ToolFailure)) throw error;
          }
        }
        if (listing.truncated) more = true;
      };
      await walk(root.path, root, 0);
      const shown = lines.slice(offset - 1);
      if (shown.length === 0 && offset > 1) {
        throw new ToolFailure("InvalidInput", `offset ${offset} is past the ${lines.length} entries there`);
      }
      const out = [`Path: ${root.path}`, ...shown];
      if (more) out.push(`More than ${wanted} entries found; pass offset=${wanted + 1} for the next page.`);
      return { content: out.join("\n"), details: { path: root.path, entries: shown, more } };
    },
  });
}
