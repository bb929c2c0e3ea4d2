// One Explicit Edit task in one of Bridle's edit formats, to a results line. Check mode (no model) plays
// the benchmark's reference edit through the format's real tools in a real Harness; live mode gives the
// task's prompt to the agent composed as for every eval run. Either way the verdict is the benchmark's:
// the whole tree equal to the expected one, byte for byte.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Harness, type Message, type ToolResultMessage, textOf } from "@bridle/core";
import { profileTools } from "@bridle/profiles";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { ScriptedModel, type ScriptedTurn } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";
import { createShellTools, selectRunner } from "@bridle/tools-shell";
import { composeAgent, type SandboxMode } from "../compose.js";
import type { EditFormatName } from "../edit-format/edits.js";
import { seenLines } from "../edit-format/mistake-model.js";
import type { CostedModel } from "../models.js";
import type { ResultLineInput } from "../result.js";
import { commitFixture } from "../runner.js";
import { TaskSpec } from "../task.js";
import { type FileChange, fileChanges, hashlineCall, type PlannedCall, referenceCall } from "./reference.js";
import type { ExplicitEditTask } from "./tasks.js";
import { compareTree, writeTree } from "./tree.js";

export const SUITE = "explicit-edit";
const EDIT_TOOLS = new Set(["edit_file", "write_file", "apply_patch"]);

type Step =
  | { readonly kind: "read"; readonly path: string }
  | { readonly kind: "edit"; readonly change: FileChange };

/** The reference edit as a scripted model: read each file it changes, then make its edit. */
function referenceModel(format: EditFormatName, changes: readonly FileChange[]): ScriptedModel {
  const steps: Step[] = changes.flatMap((change): Step[] =>
    change.before === undefined
      ? [{ kind: "edit", change }]
      : [
          { kind: "read", path: change.path },
          { kind: "edit", change },
        ],
  );
  let next = 0;
  const call = (planned: PlannedCall): ScriptedTurn => ({
    toolCalls: [{ id: `call_${next}`, name: planned.name, arguments: planned.arguments }],
  });
  return new ScriptedModel(
    (request): ScriptedTurn => {
      const step = steps[next];
      next++;
      if (!step) return { text: "Applied the reference edit." };
      if (step.kind === "read") return call({ name: "read_file", arguments: { path: step.path } });
      const planned =
        referenceCall(format, step.change) ??
        hashlineCall(step.change, seenLines(lastToolResult(request.messages), "hashline"));
      return call(planned);
    },
    { record: false },
  );
}

function lastToolResult(messages: readonly Message[]): ToolResultMessage {
  const last = messages.at(-1);
  if (last?.role !== "tool") throw new Error("the reference edit expected a read's result");
  return last;
}

export interface TaskRunOptions {
  readonly format: EditFormatName;
  /** Live mode: the model; check mode when absent. */
  readonly model?: CostedModel;
  readonly modelName?: string;
  readonly provider?: string;
  readonly sandbox?: SandboxMode;
  readonly runIndex?: number;
}

/** Runs one task in one format and returns its results line; never throws for a failing edit. */
export async function runExplicitEditTask(
  task: ExplicitEditTask,
  options: TaskRunOptions,
): Promise<ResultLineInput> {
  const root = await mkdtemp(join(tmpdir(), "bridle-explicit-edit-"));
  const workspace = join(root, "repo");
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const notes: string[] = [];
  try {
    await mkdir(workspace);
    await writeTree(workspace, task.input);
    const live = options.model !== undefined;
    let messages: readonly Message[] = [];
    let stopReason = "";
    let usage = { inputTokens: 0, outputTokens: 0 };
    if (live) {
      // The composed agent's coding overlay takes its baseline from git; the .git it needs is not the task's.
      await commitFixture(workspace);
      const spec = TaskSpec.parse({
        id: slug(task.id),
        suite: SUITE,
        prompt: task.prompt,
        format: options.format,
        approvals: "deny",
      });
      const store = await JsonlSessionStore.open({ dir: join(root, "store"), durability: "none" });
      const agent = await composeAgent({
        workspace,
        dataDir: join(root, "agent-data"),
        store,
        spec,
        model: options.model as CostedModel,
        sandbox: options.sandbox ?? "auto",
      });
      try {
        const result = await agent.harness.run({ prompt: task.prompt });
        messages = result.messages;
        stopReason = result.stopReason;
        usage = result.usage.tokens;
      } finally {
        await agent.close();
        await store.close();
      }
    } else {
      const { changes, binary } = fileChanges(task.input, task.expected);
      for (const path of binary) notes.push(`${path} is not UTF-8 text: no text edit tool can write it`);
      const fs = createFsTools();
      const { runner } = await selectRunner("off");
      const shell = await createShellTools({ runner, permissionMode: "full-access" });
      const harness = new Harness({
        model: referenceModel(options.format, changes),
        tools: profileTools({ profile: "generic", editFormat: options.format, fs, bash: shell.bash }),
        workspace,
        approver: { decide: async () => ({ approved: true }) },
        limits: { maxModelRequests: 2 * changes.length + 2 },
      });
      try {
        const result = await harness.run({ prompt: task.prompt });
        messages = result.messages;
        stopReason = result.stopReason;
      } finally {
        await shell.stopAll();
      }
    }
    const toolResults = messages.filter((m): m is ToolResultMessage => m.role === "tool");
    for (const refused of toolResults.filter((m) => m.isError)) {
      notes.push(`${refused.toolName} refused: ${textOf(refused.content).slice(0, 300)}`);
    }
    const differences = await compareTree(workspace, task.expected, live ? [".git"] : []);
    notes.push(...differences.slice(0, 5));
    if (differences.length > 5) notes.push(`… and ${differences.length - 5} more differences`);
    const pass = differences.length === 0;
    return {
      taskId: task.id,
      suite: SUITE,
      tags: task.category ? [task.category] : [],
      format: options.format,
      provider: options.provider ?? "reference",
      model: options.modelName ?? "reference",
      script: live ? "live" : "reference",
      runIndex: options.runIndex ?? 0,
      pass,
      score: pass ? 1 : 0,
      notes,
      sessionId: "",
      eventsPath: "",
      durationMs: performance.now() - started,
      turns: messages.filter((m) => m.role === "assistant").length,
      toolCalls: toolResults.length,
      failedToolCalls: toolResults.filter((m) => m.isError).length,
      editCalls: toolResults.filter((m) => EDIT_TOOLS.has(m.toolName)).length,
      failedEditCalls: toolResults.filter((m) => m.isError && EDIT_TOOLS.has(m.toolName)).length,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costUsd: live ? (options.model?.cost?.({ ...emptyUsage, ...usage }) ?? null) : 0,
      stopReason,
      startedAt,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const emptyUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

/** A task id as an eval task id (lower-case letters, digits, '.', '_', '-'). */
const slug = (id: string): string =>
  id
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "") || "task";
