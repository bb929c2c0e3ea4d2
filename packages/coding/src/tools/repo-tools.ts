import { type AnyTool, defineTool, isSecretPath } from "@bridle/core";
import { z } from "zod";
import { git } from "../git.js";
import type { AgentFileChange } from "../repo-state.js";
import { inScope } from "../review.js";
import type { RunRegistry } from "../run-state.js";
import { scanAddedLines } from "../secret-scan.js";

const MAX_STATUS_LINES = 200;
const MAX_DIFF_CHARS = 24_000;
const HUNK_LINES = 40;
const LINE_CHARS = 400;

/** A diff line as the model sees it: a line that looks like a secret is named, not shown. */
function shownLine(path: string, line: string): string {
  const finding = /^[+-]/.test(line) ? scanAddedLines("", [line.slice(1)], 1)[0] : undefined;
  if (finding) return `${line[0]}[line withheld from ${path || "the diff"}: looks like a ${finding.what}]`;
  return clipLine(line);
}

function clipLine(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}… (${line.length} chars)` : line;
}

function stat(file: AgentFileChange): string {
  const counts = file.binary ? "binary" : `+${file.added} -${file.removed}`;
  return `${file.change.padEnd(8)} ${counts.padEnd(12)} ${file.path}`;
}

export function createGitStatusTool(runs: RunRegistry): AnyTool {
  return defineTool({
    name: "git_status",
    description:
      "Branch and HEAD at the run's start, the user's changes already there (never yours to revert or report), and the files you changed in this run.",
    inputSchema: z.object({}),
    annotations: { read_only: true, idempotent: true },
    execute: async (_args, ctx) => {
      const state = await runs.get(ctx.runId, ctx.workspace.root).state;
      const baseline = state.repo.fact();
      const changes = await state.repo.changes(state.touched);
      const lines: string[] = [];
      if (baseline.repository === "git") {
        lines.push(
          `branch: ${baseline.branch ?? "(detached)"}  HEAD at run start: ${baseline.head ?? "(no commits)"}`,
        );
      } else {
        lines.push("not a git repository: changes are measured against a snapshot taken at run start");
      }
      const pre = baseline.preexisting.slice(0, MAX_STATUS_LINES);
      lines.push(`user's changes before this run (${baseline.preexisting.length}): leave them as they are`);
      for (const entry of pre) lines.push(`  ${entry.states.join("+").padEnd(16)} ${entry.path}`);
      if (baseline.preexisting.length > pre.length)
        lines.push(`  … ${baseline.preexisting.length - pre.length} more`);
      lines.push(`your changes in this run (${changes.length}):`);
      for (const file of changes.slice(0, MAX_STATUS_LINES)) lines.push(`  ${stat(file)}`);
      if (changes.length > MAX_STATUS_LINES) lines.push(`  … ${changes.length - MAX_STATUS_LINES} more`);
      return {
        content: lines.join("\n"),
        details: {
          baseline,
          changes: changes.map(({ path, change, added, removed }) => ({ path, change, added, removed })),
        },
      };
    },
  });
}

const diffSchema = z.object({
  paths: z.array(z.string().min(1)).max(50).optional().describe("only these files or folders"),
  scope: z
    .enum(["agent", "all"])
    .optional()
    .describe('"agent" (default): your changes in this run; "all": the working tree against HEAD'),
  max_hunks: z.number().int().min(0).max(20).optional().describe("per file (default 3)"),
});

function renderAgentDiff(changes: readonly AgentFileChange[], maxHunks: number): string {
  const out: string[] = [];
  const added = changes.reduce((sum, file) => sum + file.added, 0);
  const removed = changes.reduce((sum, file) => sum + file.removed, 0);
  out.push(`${changes.length} files changed by you, +${added} -${removed}`);
  for (const file of changes) out.push(`  ${stat(file)}`);
  for (const file of changes) {
    if (file.binary || file.hunks.length === 0) continue;
    out.push("", `--- ${file.path}`);
    if (isSecretPath(file.path)) {
      out.push("(contents withheld: a secret file)");
      continue;
    }
    for (const hunk of file.hunks.slice(0, maxHunks)) {
      out.push(`@@ -${hunk.oldStart},${hunk.removed.length} +${hunk.newStart},${hunk.added.length} @@`);
      const body = [...hunk.removed.map((l) => `-${l}`), ...hunk.added.map((l) => `+${l}`)];
      for (const line of body.slice(0, HUNK_LINES)) out.push(shownLine(file.path, line));
      if (body.length > HUNK_LINES) out.push(`… ${body.length - HUNK_LINES} more lines in this hunk`);
    }
    if (file.hunks.length > maxHunks) out.push(`… ${file.hunks.length - maxHunks} more hunks`);
  }
  return bound(out.join("\n"));
}

function bound(text: string): string {
  if (text.length <= MAX_DIFF_CHARS) return text;
  return `${text.slice(0, MAX_DIFF_CHARS)}\n… diff cut at ${MAX_DIFF_CHARS} characters: narrow it with paths`;
}

export function createGitDiffTool(runs: RunRegistry): AnyTool {
  return defineTool({
    name: "git_diff",
    description: "A bounded diff: line stats and a few hunks per file.",
    inputSchema: diffSchema,
    annotations: { read_only: true, idempotent: true },
    execute: async (args, ctx) => {
      const state = await runs.get(ctx.runId, ctx.workspace.root).state;
      const maxHunks = args.max_hunks ?? 3;
      const filter = (path: string) => !args.paths || inScope(path, args.paths);
      if ((args.scope ?? "agent") === "agent") {
        const changes = (await state.repo.changes(state.touched)).filter((file) => filter(file.path));
        return {
          content: renderAgentDiff(changes, maxHunks),
          details: { files: changes.map(({ path, added, removed }) => ({ path, added, removed })) },
        };
      }
      if (!state.repo.isGit) return { content: 'not a git repository: use scope "agent"', isError: true };
      // Pathspecs are literal: a path from the model is never pathspec magic.
      const specs = (args.paths ?? []).map((path) => `:(literal)${path}`);
      const base = ["diff", "HEAD", "--no-ext-diff", "--no-textconv", "--no-color"];
      const stats = (await git(state.repo.root, [...base, "--stat=200", "--", ...specs])).toString("utf8");
      const patch = (await git(state.repo.root, [...base, "-U3", "--", ...specs])).toString("utf8");
      const shown = withholdSecretFiles(patch);
      return { content: bound(`${stats.trim() || "no differences against HEAD"}\n\n${shown}`) };
    },
  });
}

/** A unified diff with the bodies of secret files (.env, keys) replaced by a note. */
function withholdSecretFiles(patch: string): string {
  const out: string[] = [];
  let hiding = false;
  let path = "";
  for (const line of patch.split("\n")) {
    const header = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (header) {
      path = header[2] ?? "";
      hiding = isSecretPath(path);
      out.push(line);
      if (hiding) out.push("(contents withheld: a secret file)");
      continue;
    }
    if (!hiding)
      out.push(line.startsWith("+++") || line.startsWith("---") ? clipLine(line) : shownLine(path, line));
  }
  return out.join("\n");
}
