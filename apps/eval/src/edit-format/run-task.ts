// One task in one format through a real Harness: the real edit tools in a temp workspace, the scripted
// mistake-making model, the file checked against the original afterwards.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { type AnyTool, Harness } from "@bridle/core";
import { createApplyPatchTool } from "@bridle/tools-apply-patch";
import { createHashlineTools } from "@bridle/tools-edit-hashline";
import { createFsTools } from "@bridle/tools-fs";
import type { ResultLineInput } from "../result.js";
import type { EditFormatName } from "./edits.js";
import { type MistakePlan, mistakeModel } from "./mistake-model.js";
import { editOutcome } from "./outcome.js";
import { checkFixed, type EditTask } from "./tasks.js";

/** The fewest model turns a task takes: read, edit, answer. */
export const MIN_TURNS = 3;

/** The tools a format offers: a read and one way to edit. */
export function formatTools(format: EditFormatName): AnyTool[] {
  const fs = createFsTools();
  if (format === "replace") return [fs.readFile, fs.editFile];
  if (format === "hashline") return [...createHashlineTools({ tracker: fs.tracker })];
  return [fs.readFile, createApplyPatchTool({ tracker: fs.tracker })];
}

const EDIT_TOOLS = new Set(["edit_file", "apply_patch", "write_file"]);

/** Runs `task` in `format` under `plan` and returns its result line (suite "edit-format"). */
export async function runEditTask(
  task: EditTask,
  format: EditFormatName,
  plan: MistakePlan,
): Promise<ResultLineInput> {
  const dir = await mkdtemp(join(tmpdir(), "bridle-edit-bench-"));
  const startedAt = new Date().toISOString();
  const started = performance.now();
  try {
    const file = join(dir, task.path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, task.broken);
    const { model, log } = mistakeModel(task, format, plan);
    const harness = new Harness({
      model,
      tools: formatTools(format),
      workspace: dir,
      limits: { maxModelRequests: 4 * (plan.maxAttempts ?? 4), toolRetryBudget: 10 },
    });
    const result = await harness.run({ prompt: task.prompt });
    const pass = checkFixed(task, await readFile(file, "utf8"));
    const toolResults = result.messages.filter((m) => m.role === "tool");
    const failedEdits = toolResults.filter((m) => m.isError && EDIT_TOOLS.has(m.toolName)).length;
    const turns = model.calls;
    const outcome = editOutcome(task, format, toolResults, pass);
    return {
      taskId: task.id,
      suite: "edit-format",
      tags: [task.mutation.kind, plan.kind ?? "no_mistake", `${task.source.package}@${task.source.version}`],
      format,
      provider: "scripted",
      model: "mistake-model",
      script: `${plan.kind ?? "none"}@${plan.rate}/seed${plan.seed}`,
      runIndex: 0,
      pass,
      score: pass ? 1 : 0,
      notes: pass ? [] : [`the file differs from the original after the run (stop: ${result.stopReason})`],
      sessionId: result.runId,
      eventsPath: "",
      durationMs: performance.now() - started,
      turns,
      toolCalls: toolResults.length,
      failedToolCalls: toolResults.filter((m) => m.isError).length,
      editCalls: toolResults.filter((m) => EDIT_TOOLS.has(m.toolName)).length,
      failedEditCalls: failedEdits,
      inputTokens: result.usage.tokens.inputTokens,
      outputTokens: result.usage.tokens.outputTokens,
      costUsd: 0,
      stopReason: result.stopReason,
      startedAt,
      metrics: {
        extraTurns: Math.max(0, turns - MIN_TURNS),
        editAttempts: log.editAttempts,
        injectedMistakes: log.injected,
        silentCorruption: outcome.silentCorruption,
        refusals: outcome.refusals,
        nonActionableRefusals: outcome.nonActionableRefusals,
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
