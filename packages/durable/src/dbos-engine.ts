// A DurableEngine on DBOS Transact: a run is a DBOS workflow, its model requests and tool calls are DBOS
// steps, approvals are DBOS messages, and the queue is a DBOS queue. DBOS keeps one engine per process.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { BridleError, errorMessage } from "@bridle/core";
import { DBOS } from "@dbos-inc/dbos-sdk";
import {
  APP_NAME,
  type DbosConnection,
  DbosRunQueue,
  DEFAULT_SCHEMA,
  QUEUE_NAME,
  RUN_FORMAT_VERSION,
  WORKFLOW_NAME,
} from "./dbos-queue.js";
import type { DurableContext } from "./durable-context.js";
import type {
  ComposeAgent,
  DurableEngine,
  DurableHandle,
  DurableRunOutcome,
  DurableRunRequest,
} from "./engine.js";
import { ExecutorLease } from "./lease.js";
import { runDurableBody } from "./run-body.js";
import { DEFAULT_MIGRATE_TIMEOUT_MS, migrateSchema } from "./schema-migration.js";

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
}

/** The compose function of the engine running in this process (DBOS registers workflows per process). */
let activeCompose: ComposeAgent | undefined;
let runWorkflow: ((request: DurableRunRequest) => Promise<DurableRunOutcome>) | undefined;

function registeredWorkflow(): (request: DurableRunRequest) => Promise<DurableRunOutcome> {
  runWorkflow ??= DBOS.registerWorkflow(
    async (request: DurableRunRequest): Promise<DurableRunOutcome> => {
      if (!activeCompose)
        throw new BridleError("invalid_config", "no durable engine is launched in this process");
      return runDurableBody(dbosContext(), request, activeCompose);
    },
    // A run killed again and again while recovering would otherwise end as failed after DBOS's default.
    { name: WORKFLOW_NAME, maxRecoveryAttempts: 1000 },
  );
  return runWorkflow;
}

function dbosContext(): DurableContext {
  const runId = DBOS.workflowID;
  if (runId === undefined) throw new Error("a durable run body ran outside its workflow");
  return {
    runId,
    step: (name, work) => DBOS.runStep(work, { name }),
    publish: (key, value) => DBOS.setEvent(key, value),
    receive: async <T>(topic: string): Promise<T> => {
      for (;;) {
        const message = await DBOS.recv<T>(topic, 86_400);
        if (message !== null) return message;
      }
    },
  };
}

/** Launches DBOS in this process and returns the engine; `close` shuts it down. One per process. */
export async function launchDbosEngine(options: DbosEngineOptions): Promise<DurableEngine> {
  if (activeCompose)
    throw new BridleError("invalid_config", "a durable engine is already launched in this process");
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
  activeCompose = options.compose;
  let queue: DbosRunQueue | undefined;
  const schema = options.schema ?? DEFAULT_SCHEMA;
  try {
    // DBOS's own migrations in launch do not wait for each other: run them here, one process at a time.
    await migrateSchema(options.databaseUrl, schema, {
      timeoutMs: options.migrateTimeoutMs ?? DEFAULT_MIGRATE_TIMEOUT_MS,
      always: true,
    });
    DBOS.setConfig({
      name: APP_NAME,
      systemDatabaseUrl: options.databaseUrl,
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
    activeCompose = undefined;
    await DBOS.shutdown().catch(() => {});
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
      const handle = await DBOS.startWorkflow(workflow, {
        ...(startOptions.runId ? { workflowID: startOptions.runId } : {}),
      })(request);
      return { runId: handle.workflowID, outcome: handle.getResult() };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await sweeping?.catch(() => {});
      await runs.close();
      // Runs still going here stay unfinished in the database: another process recovers them.
      await DBOS.shutdown();
      activeCompose = undefined;
      await lease.release();
    },
  };
}
