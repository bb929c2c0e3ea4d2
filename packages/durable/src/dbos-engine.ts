// A DurableEngine on DBOS Transact: a run is a DBOS workflow, its model requests and tool calls are DBOS
// steps, and the queue is a DBOS queue. A person's decisions are kept sealed in Bridle's own table
// (decision-box.ts); a queued run waiting for one parks and is rewound onto the queue once it is given
// (parked.ts). DBOS keeps one engine per process.
import { randomBytes, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { BridleError, errorMessage } from "@bridle/core";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { dbosDatabaseUrl } from "./database-url.js";
import {
  APP_NAME,
  checkedRunId,
  connectionSeal,
  type DbosConnection,
  DbosRunQueue,
  DEFAULT_SCHEMA,
  outcomeScope,
  QUEUE_NAME,
  RUN_FORMAT_VERSION,
  requestScope,
  WORKFLOW_NAME,
} from "./dbos-queue.js";
import { DecisionBox } from "./decision-box.js";
import type { OnWaiting } from "./durable-approver.js";
import type { DurableContext } from "./durable-context.js";
import type {
  ComposeAgent,
  DurableEngine,
  DurableHandle,
  DurableRunOutcome,
  DurableRunRequest,
} from "./engine.js";
import { ExecutorLease } from "./lease.js";
import { isParked, type ParkedRun, RunParked } from "./parked.js";
import { runDurableBody } from "./run-body.js";
import { DEFAULT_MIGRATE_TIMEOUT_MS, migrateSchema } from "./schema-migration.js";
import type { RunSeal, Sealed } from "./seal.js";

export interface DbosEngineOptions extends DbosConnection {
  /** Builds the agent for each run this process executes (from the run's recorded options). */
  readonly compose: ComposeAgent;
  /**
   * Pull queued runs, at most this many at once in each process (DBOS's per-worker concurrency, a
   * setting of the queue: the last worker to start sets it for all). 0 (the default): pull none.
   */
  readonly concurrency?: number;
  /** How often a worker looks for runs whose process is gone (default 2000 ms). */
  readonly recoverEveryMs?: number;
  /** How often an idle worker polls the queue (default 200 ms). */
  readonly pollMs?: number;
  /** Called when the connection that marks this process alive breaks (default: exit with code 70). */
  readonly onLeaseLost?: (error: Error) => void;
  /** DBOS's own log level (default "error"). */
  readonly logLevel?: "debug" | "info" | "warn" | "error";
  /** Told when a run this process holds starts waiting for a person (and on what). */
  readonly onWaiting?: OnWaiting;
}

/** The engine running in this process (DBOS registers workflows per process). */
interface ActiveEngine {
  readonly compose: ComposeAgent;
  readonly seal: RunSeal;
  readonly onWaiting?: OnWaiting;
  readonly decisions: DecisionBox;
  /**
   * Runs started here (`start`) while this process lives: they hold no queue slot, so they wait for a
   * person where they run. A run executing from the queue (pulled, recovered, continued) parks instead.
   */
  readonly startedHere: Set<string>;
  /** Set when the engine closes: a run waiting here stops looking for its decision. */
  closed: boolean;
}
let active: ActiveEngine | undefined;
let runWorkflow: ((input: Sealed) => Promise<Sealed>) | undefined;

function registeredWorkflow(): (input: Sealed) => Promise<Sealed> {
  runWorkflow ??= DBOS.registerWorkflow(
    async (input: Sealed): Promise<Sealed> => {
      if (!active) throw new BridleError("invalid_config", "no durable engine is launched in this process");
      const { seal, compose, onWaiting } = active;
      const context = dbosContext(active);
      // A request edited in the database (its prompt, its options) is refused before anything runs.
      const request = context.open<DurableRunRequest>(
        requestScope(context.runId),
        input,
        `the request of run ${context.runId}`,
      );
      const outcome = await runDurableBody(context, request, compose, onWaiting);
      return seal.seal(outcomeScope(context.runId), outcome);
    },
    // A run killed again and again while recovering would otherwise end as failed after DBOS's default.
    { name: WORKFLOW_NAME, maxRecoveryAttempts: 1000 },
  );
  return runWorkflow;
}

/** How often a run waiting where it runs looks for its decision. */
const DECISION_POLL_MS = 250;

function dbosContext(engine: ActiveEngine): DurableContext {
  const { seal, decisions } = engine;
  const runId = DBOS.workflowID;
  if (runId === undefined) throw new Error("a durable run body ran outside its workflow");
  // Steps come in the same order on every execution, so a step's place names it in its seal: a checkpoint
  // moved to another step or run is refused like an edited one.
  let steps = 0;
  let refused: Error | undefined;
  let parked: ParkedRun | undefined;
  const controller = new AbortController();
  const refuse = (error: Error): Error => {
    refused ??= error;
    return error;
  };
  const open = <T>(scope: string, sealed: unknown, what: string): T => {
    try {
      return seal.open<T>(scope, sealed, what);
    } catch (error) {
      throw refuse(error as Error);
    }
  };
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    // A parked run records nothing more: its continuation runs this step, at this place.
    if (parked) throw new RunParked();
    const scope = `step:${runId}:${steps++}:${name}`;
    const stored = await DBOS.runStep(
      async () => {
        await noLaterSteps(runId, name, refuse);
        return seal.seal(scope, await work());
      },
      { name },
    );
    return open<T>(scope, stored, `the checkpoint of step ${name} of run ${runId}`);
  };
  return {
    runId,
    seal,
    open,
    refuse,
    refusal: () => refused,
    parked: () => parked,
    signal: controller.signal,
    step,
    publish: async (key, value) => {
      if (parked) throw new RunParked();
      await DBOS.setEvent(key, value);
    },
    awaitDecision: async (topic, pending, waiting) => {
      type Taken = { readonly decision: unknown } | { readonly none: true; readonly place: number };
      // One step takes the decision, so it is recorded with the run; a run that parks records "none" here
      // and its continuation starts at this step (its place), which then finds the decision.
      const taken = await step<Taken>(`answer:${topic.replace(/^bridle\.decision:/, "")}`, async () => {
        const given = await decisions.take(runId, topic);
        if (given !== undefined) return { decision: given };
        waiting();
        const place = DBOS.stepID;
        if (!engine.startedHere.has(runId) && place !== undefined) return { none: true, place };
        for (;;) {
          await sleep(DECISION_POLL_MS);
          // The process is stopping: the run stays unfinished, and another process continues it.
          if (engine.closed) await new Promise<never>(() => {});
          const later = await decisions.take(runId, topic);
          if (later !== undefined) return { decision: later };
        }
      });
      if ("decision" in taken) return taken.decision;
      parked = { parked: { pending, topic, resumeAt: taken.place } };
      controller.abort(new RunParked());
      throw new RunParked();
    },
  };
}

/**
 * A step runs only when the database holds no checkpoint at its place. If it holds checkpoints of later
 * steps, this one's was deleted (steps are recorded in order): running it again could repeat an effect,
 * so the run is refused instead.
 */
async function noLaterSteps(runId: string, name: string, refuse: (error: Error) => Error): Promise<void> {
  const place = DBOS.stepID;
  if (place === undefined) return;
  // Only the rows around this place (in function-id order; the ones below are all there, or an earlier
  // step would have been refused), not the whole history with its outputs at every step.
  const near = (await DBOS.listWorkflowSteps(runId, { offset: Math.max(0, place - 1), limit: 3 })) ?? [];
  const later = near.find((step) => step.functionID > place);
  if (later) {
    throw refuse(
      new BridleError(
        "envelope_tampered",
        `refused: the checkpoint of step ${name} of run ${runId} is missing from the database while later steps (${later.name}) are recorded: it was deleted; the step was not run again`,
      ),
    );
  }
}

/** Launches DBOS in this process and returns the engine; `close` shuts it down. One per process. */
export async function launchDbosEngine(options: DbosEngineOptions): Promise<DurableEngine> {
  if (active) throw new BridleError("invalid_config", "a durable engine is already launched in this process");
  const seal = connectionSeal(options);
  const executorId = `bridle-${hostname().slice(0, 40)}-${process.pid}-${randomBytes(4).toString("hex")}`;
  const appVersion = options.appVersion ?? RUN_FORMAT_VERSION;
  const concurrency = options.concurrency ?? 0;
  if (!Number.isInteger(concurrency) || concurrency < 0) {
    throw new BridleError("invalid_config", `concurrency must be a whole number ≥ 0, not ${concurrency}`);
  }
  const workflow = registeredWorkflow();
  // Alive before any run is ours: a run this process holds is never taken for an orphan.
  const lease = await ExecutorLease.hold(options.databaseUrl, executorId, (error) => {
    if (options.onLeaseLost) options.onLeaseLost(error);
    else {
      process.stderr.write(
        `bridle durable: lost the connection marking this process alive (${error.message}); exiting\n`,
      );
      process.exit(70);
    }
  });
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const engine: ActiveEngine = {
    compose: options.compose,
    seal,
    ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
    decisions: new DecisionBox(options.databaseUrl, schema),
    startedHere: new Set(),
    closed: false,
  };
  active = engine;
  let queue: DbosRunQueue | undefined;
  try {
    // DBOS's own migrations in launch do not wait for each other: run them here, one process at a time.
    await migrateSchema(options.databaseUrl, schema, {
      timeoutMs: options.migrateTimeoutMs ?? DEFAULT_MIGRATE_TIMEOUT_MS,
      always: true,
    });
    DBOS.setConfig({
      name: APP_NAME,
      systemDatabaseUrl: dbosDatabaseUrl(options.databaseUrl),
      systemDatabaseSchemaName: schema,
      runMigrations: false,
      applicationVersion: appVersion,
      executorID: executorId,
      logLevel: options.logLevel ?? "error",
      listenQueues: concurrency > 0 ? [QUEUE_NAME] : [],
    });
    await DBOS.launch();
    if (concurrency > 0) {
      await DBOS.registerQueue(QUEUE_NAME, {
        workerConcurrency: concurrency,
        minPollingIntervalMs: options.pollMs ?? 200,
        onConflict: "always_update",
      });
    }
    queue = await DbosRunQueue.open(options);
  } catch (error) {
    active = undefined;
    await DBOS.shutdown().catch(() => {});
    await engine.decisions.close();
    await lease.release();
    throw new BridleError("invalid_config", `cannot start the durable engine: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const runs = queue;

  let sweeping: Promise<readonly string[]> | undefined;
  const recoverOrphans = (): Promise<readonly string[]> => {
    sweeping ??= (async () => {
      const recovered: string[] = [];
      const pending = await DBOS.listWorkflows({
        workflowName: WORKFLOW_NAME,
        status: "PENDING",
        applicationVersion: appVersion,
        loadInput: false,
        loadOutput: false,
      });
      const owners = new Set(
        pending.flatMap((row) => (row.executorId && row.executorId !== executorId ? [row.executorId] : [])),
      );
      // Parked runs whose decision was given while they were parking (the person saw them waiting, the
      // run had not ended yet) go back on the queue here; a failure there does not hold up recovery.
      await runs.resumeAnswered().catch((error: unknown) => {
        process.stderr.write(`bridle durable: continuing answered runs failed: ${errorMessage(error)}\n`);
      });
      for (const owner of owners) {
        await lease.whileDead(owner, async () => {
          // Read again under the lock: another process may have recovered them in between.
          const orphans = await DBOS.listWorkflows({
            workflowName: WORKFLOW_NAME,
            status: "PENDING",
            executorId: owner,
            applicationVersion: appVersion,
            loadInput: false,
            loadOutput: false,
          });
          const ids = orphans.map((row) => row.workflowID);
          if (ids.length > 0) await DBOS.resumeWorkflows(ids, { queueName: QUEUE_NAME });
          recovered.push(...ids);
        });
      }
      return recovered;
    })().finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  };

  let timer: NodeJS.Timeout | undefined;
  if (concurrency > 0) {
    await recoverOrphans();
    timer = setInterval(() => {
      recoverOrphans().catch((error) => {
        process.stderr.write(`bridle durable: looking for orphaned runs failed: ${errorMessage(error)}\n`);
      });
    }, options.recoverEveryMs ?? 2000);
    timer.unref();
  }

  let closed = false;
  return {
    executorId,
    enqueue: (request, enqueueOptions) => runs.enqueue(request, enqueueOptions),
    list: (listOptions) => runs.list(listOptions),
    get: (runId) => runs.get(runId),
    wait: (runId) => runs.wait(runId),
    pendingApprovals: (runId) => runs.pendingApprovals(runId),
    decide: (runId, toolCallId, decision) => runs.decide(runId, toolCallId, decision),
    recoverOrphans,
    async start(request, startOptions = {}): Promise<DurableHandle> {
      const runId = checkedRunId(startOptions.runId ?? randomUUID());
      engine.startedHere.add(runId);
      const handle = await DBOS.startWorkflow(workflow, { workflowID: runId })(
        seal.seal(requestScope(runId), request),
      );
      const outcome = handle
        .getResult()
        .then(async (sealed) => {
          const ended = seal.open<DurableRunOutcome | ParkedRun>(
            outcomeScope(runId),
            sealed,
            `the outcome of run ${runId}`,
          );
          if (!isParked(ended)) return ended;
          // Parked after all (not by this process's execution): it ends when a worker finishes it.
          const info = await runs.wait(runId);
          if (info.outcome) return info.outcome;
          throw new BridleError("invalid_config", `durable run ${runId} ${info.status}: ${info.error ?? ""}`);
        })
        .finally(() => engine.startedHere.delete(runId));
      return { runId, outcome };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await sweeping?.catch(() => {});
      await runs.close();
      // Runs still going here stay unfinished in the database: another process recovers them.
      engine.closed = true;
      await DBOS.shutdown();
      active = undefined;
      await engine.decisions.close();
      await lease.release();
    },
  };
}
