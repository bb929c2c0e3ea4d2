// --queue: runs go through @bridle/durable's work queue (DBOS on Postgres) to `bridle-eval worker`
// processes, so an eval spreads over many processes or machines. The coordinator prepares each workspace,
// enqueues the run, answers its approvals as the task says, then reads the run's events from the shared
// Postgres session store and judges it here. Workers must see the same filesystem (one machine, or a
// shared mount): the workspace folders travel by path.
import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { projectTranscript, type RunEvent } from "@bridle/core";
import type { DurableAgent, DurableRunRequest, RunQueue } from "@bridle/durable";
import type { PostgresSessionStore } from "@bridle/store-postgres";
import { type SandboxMode, taskAgent } from "./compose.js";
import { BridleEvalError } from "./errors.js";
import { type ModelChoice, PROVIDERS, type ProviderName, providerModel, scriptedModel } from "./models.js";
import type { ResultLine } from "./result.js";
import { failedLine, judgeRun, type Places, prepareWorkspace, type RunPlan } from "./runner.js";
import { loadTask, type TaskLimits } from "./task.js";

/** DBOS's tables for eval runs live apart from the bridle CLI's, so neither's workers pull the other's runs. */
export const EVAL_QUEUE_SCHEMA = "bridle_eval_durable";

/** What a queued eval run records (plain JSON; never a key). */
interface QueuedOptions {
  readonly taskDir: string;
  readonly script: string;
  readonly workspace: string;
  readonly outside: string;
  readonly sandbox: SandboxMode;
  readonly provider: ProviderName;
  readonly model: string;
  readonly baseUrl?: string;
  readonly limits: TaskLimits;
}

function queuedOptions(request: DurableRunRequest): QueuedOptions {
  const options = (request.options ?? {}) as unknown as QueuedOptions;
  if (
    typeof options.taskDir !== "string" ||
    typeof options.workspace !== "string" ||
    !PROVIDERS.includes(options.provider)
  ) {
    throw new BridleEvalError(
      "InvalidArgs",
      "a queued run without the eval's options (not a bridle-eval run?)",
    );
  }
  return options;
}

/** The agent a worker builds for a queued eval run: the same parts as an in-process run. */
export function evalComposer(
  store: PostgresSessionStore,
): (request: DurableRunRequest) => Promise<DurableAgent> {
  return async (request) => {
    const options = queuedOptions(request);
    const task = await loadTask(options.taskDir);
    const spec = { ...task.spec, limits: options.limits };
    let model: DurableAgent["model"];
    if (options.script === "live") {
      const choice: ModelChoice = {
        provider: options.provider,
        model: options.model,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      };
      model = await providerModel(choice, process.env);
    } else {
      const script = task.scripts[options.script];
      if (!script)
        throw new BridleEvalError("InvalidTask", `task ${spec.id} has no script "${options.script}"`);
      model = scriptedModel(script, { workspace: options.workspace, outside: options.outside });
    }
    // The same recipe as an in-process run; the durable engine answers approvals and supplies the store.
    const agent = await taskAgent(
      {
        workspace: options.workspace,
        dataDir: join(dirname(options.workspace), "agent-data"),
        spec,
        model,
        sandbox: options.sandbox,
        store,
      },
      "durable",
    );
    const { model: built, tools, approver: _approver, ...harness } = agent.options;
    return { model: built, tools: tools ?? [], store: agent.store, harness, close: () => agent.close() };
  };
}

export interface QueueRunOptions {
  readonly queue: RunQueue;
  readonly store: PostgresSessionStore;
  readonly model: ModelChoice;
  readonly sandbox: SandboxMode;
  /** The results file's folder: each run's events are copied to events/sessions/<id>.jsonl there. */
  readonly outDir: string;
  readonly eventsDir: string;
  readonly keep?: boolean;
  readonly pollMs?: number;
}

/** One run through the queue, to its results line. Never throws for a failing agent or check. */
export async function runQueued(plan: RunPlan, options: QueueRunOptions): Promise<ResultLine> {
  const timing = { startedAt: new Date(), started: performance.now() };
  const { spec } = plan.task;
  let places: Places | undefined;
  const sessionId = randomUUID();
  try {
    places = await prepareWorkspace(plan.task);
    const recorded: QueuedOptions = {
      taskDir: plan.task.dir,
      script: plan.script,
      workspace: places.workspace,
      outside: places.outside,
      sandbox: options.sandbox,
      provider: options.model.provider,
      model: options.model.model,
      ...(options.model.baseUrl ? { baseUrl: options.model.baseUrl } : {}),
      limits: spec.limits,
    };
    const runId = await options.queue.enqueue({
      prompt: spec.prompt,
      sessionId,
      options: recorded as unknown as DurableRunRequest["options"] & object,
    });
    // The queue has no cancel: past the time budget (and a minute's grace for the queue) the run is given up.
    const deadline = Date.now() + spec.limits.timeoutMs + 60_000;
    let info = await options.queue.get(runId);
    while (info?.status === "queued" || info?.status === "running" || info === undefined) {
      if (Date.now() > deadline) throw new Error(`run ${runId} did not finish within its time budget`);
      for (const pending of await options.queue.pendingApprovals(runId)) {
        // As in-process: the project's checks are approved (approvals: checks), nothing else; a call that may
        // have run before a worker died is re-run (the workspace is this eval's own).
        const approved =
          pending.kind === "repeat" || (pending.toolName === "run_check" && spec.approvals === "checks");
        await options.queue.decide(
          runId,
          pending.toolCallId,
          approved
            ? { approved: true }
            : { approved: false, reason: "no one is at a terminal to approve this call (an eval run)" },
        );
      }
      await sleep(options.pollMs ?? 200);
      info = await options.queue.get(runId);
    }
    if (info.status !== "finished" || !info.outcome) {
      throw new Error(`queued run ${runId} ${info.status}${info.error ? `: ${info.error}` : ""}`);
    }
    const events: RunEvent[] = [];
    for await (const stored of options.store.read(sessionId)) {
      const { event } = stored;
      if (event.type !== "text_delta" && event.type !== "reasoning_delta" && event.type !== "tool_progress") {
        events.push(event);
      }
    }
    const sessions = join(options.outDir, options.eventsDir);
    await mkdir(sessions, { recursive: true });
    await writeFile(
      join(sessions, `${sessionId}.jsonl`),
      events.map((event) => `${JSON.stringify(event)}\n`).join(""),
    );
    const priced =
      options.model.provider === "scripted" ? undefined : await providerModel(options.model, process.env);
    const outcome = info.outcome;
    return await judgeRun(
      plan,
      { model: options.model, eventsDir: options.eventsDir },
      places,
      {
        sessionId,
        events,
        transcript: projectTranscript(events),
        stopReason: outcome.stopReason,
        finalText: outcome.finalText,
        ...(outcome.error ? { error: outcome.error } : {}),
        cost: (usage) => (priced ? (priced.cost?.(usage) ?? null) : 0),
        notes: [`ran on worker ${info.executor ?? "?"}`],
      },
      timing,
    );
  } catch (error) {
    return failedLine(plan, { model: options.model, eventsDir: options.eventsDir }, sessionId, error, timing);
  } finally {
    if (places && !options.keep) await rm(places.root, { recursive: true, force: true });
  }
}

/** Opens the queue and the shared session store for a coordinator. */
export async function openQueue(
  databaseUrl: string,
): Promise<{ queue: RunQueue; store: PostgresSessionStore }> {
  const [{ DbosRunQueue }, { PostgresSessionStore }] = await Promise.all([
    import("@bridle/durable"),
    import("@bridle/store-postgres"),
  ]);
  const store = await PostgresSessionStore.open({ connectionString: databaseUrl, max: 4 });
  try {
    const queue = await DbosRunQueue.open({ databaseUrl, schema: EVAL_QUEUE_SCHEMA });
    return { queue, store };
  } catch (error) {
    await store.close();
    throw error;
  }
}
