import { isAbsolute, relative, resolve } from "node:path";
import { type AnyHook, type AnyTool, defineHook } from "@bridle/core";
import { ShellEnvironment } from "@bridle/tools-shell";
import { commandSteps } from "./command-steps.js";
import { type ChangesFact, FACT } from "./facts.js";
import { CODING_INSTRUCTIONS } from "./prompt.js";
import { reviewChanges } from "./review.js";
import { type CodingRunState, RunRegistry } from "./run-state.js";
import { createDetectChecksTool, createRunCheckTool } from "./tools/check-tools.js";
import { createGitCommitTool } from "./tools/commit-tool.js";
import { createHandoffNotesTool, createUpdatePlanTool } from "./tools/plan-tools.js";
import { createGitDiffTool, createGitStatusTool } from "./tools/repo-tools.js";

export interface CodingOverlayOptions {
  /** The workspace folder the agent works in (the harness's workspace root). */
  readonly workspace: string;
  /**
   * Where run_check's commands run and what judges them: the same environment as the bash tool, so the
   * sandbox and the command policy cover checks too. A default LocalRunner environment when absent.
   */
  readonly shell?: ShellEnvironment;
  /** Failed checks the agent may repair and run again before the run stops (default 2). */
  readonly repairAttempts?: number;
  /** Longest a check may run, in milliseconds (default 10 minutes, capped by the sandbox policy). */
  readonly checkTimeoutMs?: number;
  /** Tools that never write, so no rescan follows them (added to the overlay's own and the usual readers). */
  readonly readOnlyTools?: readonly string[];
}

export interface CodingOverlay {
  /** git_status, git_diff, detect_checks, run_check, update_plan, handoff_notes. */
  readonly tools: readonly AnyTool[];
  /** Baseline at run start, write snapshots, rescans after writes, facts, the final review. */
  readonly hooks: readonly AnyHook[];
  /** A system prompt fragment: how to work, and that repository text is data, never policy. */
  readonly instructions: string;
}

// Tools known not to write. Anything else (bash, an MCP tool, a tool added later) is followed by a rescan.
const READ_ONLY = [
  "read_file",
  "list_dir",
  "glob",
  "grep",
  "fetch",
  "skill_read",
  "git_status",
  "git_diff",
  "detect_checks",
  "update_plan",
  "handoff_notes",
  // The same readers under the model-facing names of @bridle/profiles (Codex's and Claude Code's).
  "grep_files",
  "Read",
  "Glob",
  "Grep",
  "TodoWrite",
];

/** Paths a write tool's arguments name: `path`-like fields, and the files of an apply_patch patch. */
function namedPaths(args: unknown): string[] {
  if (typeof args !== "object" || args === null) return [];
  const paths: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (/^(path|file_path|filePath|target|destination|from|to)$/.test(key) && typeof value === "string")
      paths.push(value);
    if (key === "paths" && Array.isArray(value))
      for (const v of value) if (typeof v === "string") paths.push(v);
    if ((key === "input" || key === "patch") && typeof value === "string") {
      for (const match of value.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)) {
        paths.push((match[1] as string).trim());
      }
    }
  }
  return paths;
}

/**
 * A shell tool's own statement that its command wrote nothing (@bridle/tools-shell's `details.writes`,
 * "none" only when its policy proved it). Skipping the rescan then only delays what a background command
 * may have written to the next rescan; the final review rescans whatever the tools said.
 */
function provedNoWrites(details: unknown): boolean {
  return (
    typeof details === "object" && details !== null && (details as { writes?: unknown }).writes === "none"
  );
}

/**
 * The coding overlay: tools and hooks that give a general tool loop a coding agent's discipline. Install
 * both on a Harness (with the instructions in its system prompt); the evidence handoff is then built from
 * the run's events with `buildEvidence`.
 */
export async function createCodingOverlay(options: CodingOverlayOptions): Promise<CodingOverlay> {
  const root = resolve(options.workspace);
  const runs = new RunRegistry(root);
  const shell = options.shell ?? (await ShellEnvironment.create());
  const repairAttempts = options.repairAttempts ?? 2;
  if (!Number.isInteger(repairAttempts) || repairAttempts < 0) {
    throw new TypeError("repairAttempts must be a whole number, 0 or more");
  }
  const readOnly = new Set([...READ_ONLY, ...(options.readOnlyTools ?? [])]);
  const relativePath = (path: string) => {
    const rel = isAbsolute(path) ? relative(root, path) : path;
    return rel.split("\\").join("/");
  };

  const rescan = async (
    state: CodingRunState,
    record: ((kind: string, data: unknown) => void) | undefined,
    toolCallId?: string,
  ) => {
    const changes = await state.repo.changes(state.touched);
    const fact: ChangesFact = {
      files: changes.map(({ path, added, removed, change, sha256 }) => ({
        path,
        added,
        removed,
        change,
        ...(sha256 === undefined ? {} : { sha256 }),
      })),
      flags: reviewChanges(changes, state.scope),
    };
    const json = JSON.stringify(fact);
    if (json === state.lastChanges) return;
    state.lastChanges = json;
    record?.(FACT.changes, toolCallId === undefined ? fact : { ...fact, toolCallId });
  };

  // The baseline's facts, once per run: at its first tool call, or at its end when it made none.
  const recordBaseline = (
    state: CodingRunState,
    record: ((kind: string, data: unknown) => void) | undefined,
  ) => {
    if (state.baselineRecorded) return;
    state.baselineRecorded = true;
    record?.(FACT.baseline, state.repo.fact());
    record?.(FACT.checksDetected, state.detected);
  };

  const hooks: AnyHook[] = [
    defineHook({
      event: "run_start",
      name: "coding: baseline",
      handler: (input) => {
        // A run resumed after an approval pause keeps the baseline it took when it started.
        if (input.resumed && runs.has(input.runId)) return;
        // Taken while the first model request is in flight (nothing in it depends on the baseline): the
        // first tool call waits for it below, so no tool changes a file before it is taken. A failed
        // capture is not kept, and that call tries again.
        runs.get(input.runId);
      },
    }),
    defineHook({
      event: "before_tool_call",
      name: "coding: snapshot before writes",
      handler: async (input) => {
        const state = await runs.get(input.runId).state;
        recordBaseline(state, input.record);
        if (readOnly.has(input.toolCall.name)) return;
        const paths = namedPaths(input.args).map(relativePath);
        for (const path of paths) state.touched.add(path);
        await state.repo.beforeWrite(paths);
      },
    }),
    defineHook({
      event: "after_tool_call",
      name: "coding: account changes",
      handler: async (input) => {
        const state = await runs.get(input.runId).state;
        for (const fact of state.takeFacts(input.toolCall.id)) input.record?.(fact.kind, fact.data);
        const details = input.result.details as
          | { result?: { command?: unknown; exit_code?: unknown }; policy?: unknown }
          | undefined;
        // A command is text (bash) or an argv (a Codex-style shell tool).
        const raw = (input.args as { command?: unknown } | undefined)?.command;
        const command =
          Array.isArray(raw) && raw.every((part) => typeof part === "string") ? raw.join(" ") : raw;
        const exitCode = details?.result?.exit_code;
        // Only commands that ran: a refused one has no exit status and changed nothing.
        if (
          typeof command === "string" &&
          typeof exitCode === "number" &&
          input.toolCall.name !== "run_check"
        ) {
          const steps = commandSteps(details?.policy);
          input.record?.(FACT.command, {
            command,
            exitCode,
            tool: input.toolCall.name,
            toolCallId: input.toolCall.id,
            ...(steps ? { steps } : {}),
          });
        }
        if (!readOnly.has(input.toolCall.name) && !provedNoWrites(input.result.details))
          await rescan(state, input.record, input.toolCall.id);
      },
    }),
    defineHook({
      event: "run_end",
      name: "coding: final review",
      handler: async (input) => {
        if (!runs.has(input.runId)) return;
        const state = await runs.get(input.runId).state;
        recordBaseline(state, input.record);
        // A background command or a tool outside the hooks may have written since the last scan.
        await rescan(state, input.record);
        // Commits, mode changes and writes git does not show: looked for once, when the run ends.
        const history = await state.repo.history(state.touched);
        if (history) input.record?.(FACT.history, history);
        if (input.stopReason !== "approval_required") runs.drop(input.runId);
      },
    }),
  ];

  const tools: AnyTool[] = [
    createGitStatusTool(runs),
    createGitDiffTool(runs),
    createDetectChecksTool(runs),
    createRunCheckTool(runs, {
      shell,
      repairAttempts,
      timeoutMs: options.checkTimeoutMs ?? 10 * 60_000,
    }),
    createUpdatePlanTool(runs),
    createHandoffNotesTool(runs),
    createGitCommitTool(runs),
  ];
  return { tools, hooks, instructions: CODING_INSTRUCTIONS };
}
