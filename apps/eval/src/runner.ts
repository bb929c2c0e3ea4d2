// One run of one task: a fresh temporary copy of its repository (made a git repo with one commit), the
// composed agent, the run recorded in the session store, then the task's check. Returns its results line.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { buildEvidence } from "@bridle/coding";
import {
  type Message,
  type RunEvent,
  type RunResult,
  type SessionStore,
  sessionSink,
  textOf,
  type Usage,
} from "@bridle/core";
import { type CheckToolCall, runCheck } from "./check.js";
import { composeAgent, type SandboxMode } from "./compose.js";
import { type CostedModel, type ModelChoice, scriptedModel } from "./models.js";
import type { ResultLine } from "./result.js";
import type { Task } from "./task.js";

const run = promisify(execFile);

/** Edit tools of every format: a failed call of one is a failed edit. */
const EDIT_TOOLS = new Set([
  "edit_file",
  "write_file",
  "apply_patch",
  "multi_edit",
  "MultiEdit",
  "Edit",
  "Write",
]);

export interface RunPlan {
  readonly task: Task;
  /** The script's name (scripted runs) or "live". */
  readonly script: string;
  readonly runIndex: number;
}

export interface RunnerOptions {
  readonly model: ModelChoice;
  /** Made once per run for a real provider (scripted runs build theirs from the task's script). */
  readonly liveModel?: () => Promise<CostedModel>;
  readonly store: SessionStore;
  /** Where the store writes sessions/<id>.jsonl, to link each run's events. */
  readonly eventsDir: string;
  readonly sandbox: SandboxMode;
  /** Keep the run's temporary folder (its path goes into the notes). */
  readonly keep?: boolean;
  /** Test only: see ComposeOptions.unguarded. */
  readonly unguarded?: boolean;
  readonly signal?: AbortSignal;
}

// Git sees only the fixture: no system or user config, fixed identity, no hooks, no signing.
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "bridle-eval",
  GIT_AUTHOR_EMAIL: "eval@bridle.invalid",
  GIT_COMMITTER_NAME: "bridle-eval",
  GIT_COMMITTER_EMAIL: "eval@bridle.invalid",
  GIT_AUTHOR_DATE: "2025-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2025-01-01T00:00:00Z",
};

/** Makes `dir` a git repository whose one commit holds everything in it (fixed identity and date). */
export async function commitFixture(dir: string): Promise<void> {
  const git = (...args: string[]) =>
    run("git", ["-c", "core.hooksPath=/dev/null", ...args], { cwd: dir, env: GIT_ENV });
  await git("init", "-q", "-b", "main");
  await git("add", "-A", "-f");
  await git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "fixture");
}

/** Copies the fixture to a fresh folder and makes it a git repository with one commit. */
export async function prepareWorkspace(
  task: Task,
): Promise<{ root: string; workspace: string; outside: string }> {
  const root = await mkdtemp(join(tmpdir(), "bridle-eval-"));
  const workspace = join(root, "repo");
  const outside = join(root, "outside");
  await cp(task.repoDir, workspace, { recursive: true, verbatimSymlinks: true });
  if (task.outsideDir) await cp(task.outsideDir, outside, { recursive: true, verbatimSymlinks: true });
  else await mkdir(outside);
  await commitFixture(workspace);
  // The user's work in progress, which the agent's diff must keep apart from its own.
  if (task.dirtyDir) await cp(task.dirtyDir, workspace, { recursive: true, verbatimSymlinks: true });
  return { root, workspace, outside };
}

/** What a run left behind, however it was executed (in this process, or by a queue worker). */
export interface RunRecord {
  readonly sessionId: string;
  readonly events: readonly RunEvent[];
  readonly transcript: readonly Message[];
  readonly stopReason: string;
  readonly finalText: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** The model's price for the run's usage; null when unknown. */
  readonly cost: (usage: Usage) => number | null;
  readonly notes: readonly string[];
}

export interface RunTiming {
  readonly startedAt: Date;
  /** performance.now() at the start. */
  readonly started: number;
}

/** Runs one planned run to its results line. Never throws for a failing agent or check. */
export async function runTask(plan: RunPlan, options: RunnerOptions): Promise<ResultLine> {
  const timing = { startedAt: new Date(), started: performance.now() };
  let places: Places | undefined;
  let sessionId = "";
  try {
    places = await prepareWorkspace(plan.task);
    const record = await executeRun(plan, options, places, (id) => {
      sessionId = id;
    });
    return await judgeRun(
      plan,
      { model: options.model, eventsDir: options.eventsDir },
      places,
      record,
      timing,
    );
  } catch (error) {
    return failedLine(plan, { model: options.model, eventsDir: options.eventsDir }, sessionId, error, timing);
  } finally {
    if (places && !options.keep) await rm(places.root, { recursive: true, force: true });
  }
}

export type Places = Awaited<ReturnType<typeof prepareWorkspace>>;

async function executeRun(
  plan: RunPlan,
  options: RunnerOptions,
  places: Places,
  onSession: (id: string) => void,
): Promise<RunRecord> {
  const { task, script } = plan;
  const { spec } = task;
  const notes: string[] = [];
  let model: CostedModel;
  if (script === "live") {
    if (!options.liveModel) throw new Error("a live run needs a provider");
    model = await options.liveModel();
  } else {
    const chosen = task.scripts[script];
    if (!chosen) throw new Error(`task ${spec.id} has no script "${script}"`);
    model = scriptedModel(chosen, places);
  }
  const agent = await composeAgent({
    workspace: places.workspace,
    // Beside the workspace, never in it: the agent's spilled output and memory, removed with the run.
    dataDir: join(places.root, "agent-data"),
    store: options.store,
    spec,
    model,
    sandbox: options.sandbox,
    ...(options.unguarded ? { unguarded: true } : {}),
  });
  const session = await options.store.createSession({
    title: `${spec.suite}/${spec.id} ${script} #${plan.runIndex}`,
    metadata: { taskId: spec.id, suite: spec.suite, script, runIndex: plan.runIndex },
  });
  onSession(session.id);
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const timer = setTimeout(() => {
    notes.push(`time budget of ${spec.limits.timeoutMs} ms reached: run aborted`);
    controller.abort();
  }, spec.limits.timeoutMs);
  const events: RunEvent[] = [];
  let tokens = 0;
  let result: RunResult;
  const sink = sessionSink(options.store, session.id);
  try {
    const stream = agent.harness.stream({
      prompt: spec.prompt,
      sessionId: session.id,
      signal: controller.signal,
      sink,
    });
    for await (const event of stream) {
      if (event.type === "text_delta" || event.type === "reasoning_delta" || event.type === "tool_progress") {
        continue;
      }
      events.push(event);
      if (event.type === "model_response") {
        tokens += event.usage.inputTokens + event.usage.outputTokens;
        if (tokens > spec.limits.maxTokens && !controller.signal.aborted) {
          notes.push(`token budget of ${spec.limits.maxTokens} reached: run aborted`);
          controller.abort();
        }
      }
    }
    result = await stream.result;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
    await sink.flush();
    await agent.close();
  }
  if (agent.sandboxWarning) notes.push("shell ran unsandboxed (bubblewrap unavailable)");
  return {
    sessionId: session.id,
    events,
    transcript: result.messages,
    stopReason: result.stopReason,
    finalText: result.finalText,
    ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    cost: (usage) => (model.cost ? (model.cost(usage) ?? null) : null),
    notes,
  };
}

/** Measures a finished run and runs the task's check on it. */
export async function judgeRun(
  plan: RunPlan,
  options: { readonly model: ModelChoice; readonly eventsDir: string },
  places: Places,
  record: RunRecord,
  timing: RunTiming,
): Promise<ResultLine> {
  const { task, script } = plan;
  const { spec } = task;
  const { events } = record;
  const toolCalls = pairToolCalls(events);
  const evidence = buildEvidence([...events]);
  const verdict = await runCheck(task.checkPath, {
    dir: places.workspace,
    events,
    transcript: record.transcript,
    result: {
      taskId: spec.id,
      script,
      format: spec.format,
      provider: options.model.provider,
      model: modelName(options.model),
      stopReason: record.stopReason,
      finalText: record.finalText,
      ...(record.error ? { error: record.error } : {}),
      evidence,
      outsideDir: places.outside,
      toolCalls,
    },
  });
  // Summed from the model's responses: the same for a run of this process and one a queue worker ran.
  let usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  for (const event of events) {
    if (event.type !== "model_response") continue;
    const add = event.usage;
    usage = {
      inputTokens: usage.inputTokens + add.inputTokens,
      outputTokens: usage.outputTokens + add.outputTokens,
      cacheReadTokens: usage.cacheReadTokens + add.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens + add.cacheWriteTokens,
      reasoningTokens: usage.reasoningTokens + add.reasoningTokens,
    };
  }
  return {
    ...lineIdentity(plan, options, record.sessionId, timing),
    pass: verdict.pass,
    score: verdict.score ?? (verdict.pass ? 1 : 0),
    notes: [...verdict.notes, ...record.notes],
    turns: events.filter((event) => event.type === "model_response").length,
    toolCalls: toolCalls.length,
    failedToolCalls: toolCalls.filter((call) => call.isError).length,
    editCalls: toolCalls.filter((call) => EDIT_TOOLS.has(call.name)).length,
    failedEditCalls: toolCalls.filter((call) => call.isError && EDIT_TOOLS.has(call.name)).length,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    costUsd: record.cost(usage),
    stopReason: record.stopReason,
  };
}

/** The fields of a results line that say which run it is, where its events are and when it ran. */
function lineIdentity(
  plan: RunPlan,
  options: { readonly model: ModelChoice; readonly eventsDir: string },
  sessionId: string,
  timing: RunTiming,
) {
  const { spec } = plan.task;
  return {
    v: 1 as const,
    taskId: spec.id,
    suite: spec.suite,
    tags: spec.tags,
    format: spec.format,
    provider: options.model.provider,
    model: modelName(options.model),
    script: plan.script,
    runIndex: plan.runIndex,
    expect: expectOf(plan),
    sessionId,
    eventsPath: sessionId ? join(options.eventsDir, `${sessionId}.jsonl`) : "",
    durationMs: Math.round(performance.now() - timing.started),
    startedAt: timing.startedAt.toISOString(),
  };
}

/** The line of a run that could not be carried out (it is not a pass). */
export function failedLine(
  plan: RunPlan,
  options: { readonly model: ModelChoice; readonly eventsDir: string },
  sessionId: string,
  error: unknown,
  timing: RunTiming,
): ResultLine {
  return {
    ...lineIdentity(plan, options, sessionId, timing),
    pass: false,
    score: 0,
    notes: [],
    turns: 0,
    toolCalls: 0,
    failedToolCalls: 0,
    failedEditCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    error: { code: "RunFailed", message: (error as Error).message },
  };
}

/** A scripted run is expected to pass unless its script says "fail"; a live run is expected to pass. */
export function expectOf(plan: RunPlan): "pass" | "fail" {
  return plan.script !== "live" && plan.task.scripts[plan.script]?.expect === "fail" ? "fail" : "pass";
}

export const modelName = (choice: ModelChoice): string =>
  choice.provider === "scripted" ? "scripted" : choice.model;

/** Each tool call of the run with its result (calls with no result are left out). */
function pairToolCalls(events: readonly RunEvent[]): CheckToolCall[] {
  const requested = new Map<string, { name: string; arguments: string }>();
  const out: CheckToolCall[] = [];
  for (const event of events) {
    if (event.type === "tool_call_requested") {
      requested.set(event.toolCall.id, { name: event.toolCall.name, arguments: event.toolCall.arguments });
    } else if (event.type === "tool_call_completed") {
      const call = requested.get(event.result.toolCallId);
      out.push({
        name: event.result.toolName,
        arguments: call?.arguments ?? "",
        isError: event.result.isError,
        ...(event.result.errorKind ? { errorKind: event.result.errorKind } : {}),
        output: textOf(event.result.content as { type: string; text?: string }[]),
      });
    }
  }
  return out;
}
