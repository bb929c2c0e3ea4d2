// The queue and its runs seen through DBOS's client: what `bridle run --enqueue` and `bridle runs` use.
// Nothing executes here, so no DBOS launch is needed.

import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type ApprovalDecision, BridleError, errorMessage, loadOrCreateApprovalSecret } from "@bridle/core";
import { DBOSClient, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { dbosDatabaseUrl } from "./database-url.js";
import { DecisionBox } from "./decision-box.js";
import {
  type DecisionBody,
  decisionScope,
  decisionTopic,
  PENDING_KEY,
  pendingScope,
} from "./durable-approver.js";
import type {
  DurableRunInfo,
  DurableRunOutcome,
  DurableRunRequest,
  DurableRunStatus,
  PendingDurableApproval,
  RunQueue,
} from "./engine.js";
import { isParked, type ParkedRun } from "./parked.js";
import { DEFAULT_MIGRATE_TIMEOUT_MS, migrateSchema } from "./schema-migration.js";
import { argsDigest, RunSeal } from "./seal.js";

/** Names DBOS keeps Bridle's runs under. */
export const APP_NAME = "bridle";
export const WORKFLOW_NAME = "bridle_run";
export const QUEUE_NAME = "bridle_runs";
export const DEFAULT_SCHEMA = "bridle_durable";
/**
 * The version of the run's step layout. Recovery only resumes a run in a process of the same version
 * (DBOS's application version): raise it when run-body.ts, durable-model.ts, durable-tool.ts or the
 * way a run waits for a person (durable-approver.ts, parked.ts) change the steps a run records.
 */
export const RUN_FORMAT_VERSION = "bridle-run-4";

export interface DbosConnection {
  /** Postgres connection string; DBOS keeps its tables in `schema` there. */
  readonly databaseUrl: string;
  /** The schema of DBOS's tables (default "bridle_durable"). */
  readonly schema?: string;
  /** Runs are recovered only by processes of the same version (default RUN_FORMAT_VERSION). */
  readonly appVersion?: string;
  /**
   * How long to wait while another process creates or migrates `schema` (processes do it one at a time)
   * before failing with `invalid_config` (default 60000 ms).
   */
  readonly migrateTimeoutMs?: number;
  /**
   * The key that seals what a run records and what a person decides (default: the user's approval
   * secret, `loadOrCreateApprovalSecret()` of @bridle/core). Every process that enqueues, executes or
   * decides runs of one database needs the same one; the database never holds it.
   */
  readonly secret?: string;
}

/** The seal scopes of a run's request (its workflow input) and of its outcome (its output). */
export const requestScope = (runId: string): string => `request:${runId}`;
export const outcomeScope = (runId: string): string => `outcome:${runId}`;

/** The seal of `connection`: its secret, else the user's approval secret. */
export function connectionSeal(connection: DbosConnection): RunSeal {
  return new RunSeal(connection.secret ?? loadOrCreateApprovalSecret());
}

const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

export class DbosRunQueue implements RunQueue {
  readonly #client: DBOSClient;
  readonly #appVersion: string;
  readonly #seal: RunSeal;
  readonly #decisions: DecisionBox;

  private constructor(client: DBOSClient, appVersion: string, seal: RunSeal, decisions: DecisionBox) {
    this.#client = client;
    this.#appVersion = appVersion;
    this.#seal = seal;
    this.#decisions = decisions;
  }

  /** Connects, creating DBOS's tables first if no engine has yet (a run may be queued before any worker starts). */
  static async open(connection: DbosConnection): Promise<DbosRunQueue> {
    const seal = connectionSeal(connection);
    await migrateSchema(connection.databaseUrl, connection.schema ?? DEFAULT_SCHEMA, {
      timeoutMs: connection.migrateTimeoutMs ?? DEFAULT_MIGRATE_TIMEOUT_MS,
      always: false,
    });
    const client = await DBOSClient.create({
      systemDatabaseUrl: dbosDatabaseUrl(connection.databaseUrl),
      systemDatabaseSchemaName: connection.schema ?? DEFAULT_SCHEMA,
      applicationName: APP_NAME,
      systemDatabasePoolSize: 4,
    });
    return new DbosRunQueue(
      client,
      connection.appVersion ?? RUN_FORMAT_VERSION,
      seal,
      new DecisionBox(connection.databaseUrl, connection.schema ?? DEFAULT_SCHEMA),
    );
  }

  async enqueue(request: DurableRunRequest, options: { readonly runId?: string } = {}): Promise<string> {
    const runId = checkedRunId(options.runId ?? randomUUID());
    await this.#client.enqueue(
      { queueName: QUEUE_NAME, workflowName: WORKFLOW_NAME, workflowID: runId, appVersion: this.#appVersion },
      this.#seal.seal(requestScope(runId), request),
    );
    return runId;
  }

  async list(options: { readonly limit?: number } = {}): Promise<readonly DurableRunInfo[]> {
    const rows = await this.#client.listWorkflows({
      workflowName: WORKFLOW_NAME,
      sortDesc: true,
      limit: options.limit ?? 50,
    });
    const runs: DurableRunInfo[] = [];
    // One at a time: the client's pool is small and a list is not worth contention with running workers.
    for (const row of rows) runs.push(await this.#described(row));
    return runs;
  }

  async get(runId: string): Promise<DurableRunInfo | undefined> {
    const [row] = await this.#client.listWorkflows({ workflowName: WORKFLOW_NAME, workflowIDs: [runId] });
    return row ? this.#described(row) : undefined;
  }

  /** A run as stored, its request checked against its seal, with what it waits on and its last step. */
  async #described(row: WorkflowStatus): Promise<DurableRunInfo> {
    const info = runInfo(row, this.#seal, this.#parkedOf(row) !== undefined);
    if (info.status !== "running" && info.status !== "queued") return info;
    const steps = (await this.#client.listWorkflowSteps(row.workflowID)) ?? [];
    // DBOS's own operations (events, messages, sleeps) are steps too, and taking a person's decision is
    // the wait itself; the run's own work says where it is.
    const last = steps
      .filter((step) => !step.name.startsWith("DBOS.") && !step.name.startsWith("answer:"))
      .at(-1);
    const lastStep = last
      ? { name: last.name, ...(last.completedAtEpochMs === undefined ? {} : { at: last.completedAtEpochMs }) }
      : undefined;
    let waitingOn: readonly PendingDurableApproval[] = [];
    let tampered = info.tampered;
    if (info.status === "running") {
      try {
        waitingOn = await this.#pending(row.workflowID);
      } catch (error) {
        tampered ??= errorMessage(error);
      }
    }
    return {
      ...info,
      ...(lastStep ? { lastStep } : {}),
      ...(waitingOn.length > 0 ? { waitingOn } : {}),
      ...(tampered === undefined ? {} : { tampered }),
    };
  }

  async wait(runId: string): Promise<DurableRunInfo> {
    const known = await this.get(runId);
    if (!known) throw new BridleError("not_found", `no durable run ${runId}`);
    for (;;) {
      // getResult rethrows a failed run's error; the run's record says what happened either way.
      await this.#client
        .retrieveWorkflow(runId)
        .getResult()
        .catch(() => {});
      // A parked run ended its workflow, not the run: wait for its continuation, and its end.
      let row = await this.#row(runId);
      while (row && this.#parkedOf(row)) {
        await sleep(PARKED_POLL_MS);
        row = await this.#row(runId);
      }
      if (!row) throw new BridleError("not_found", `durable run ${runId} disappeared while waiting`);
      if (!(row.status in ENDED)) continue;
      return this.#described(row);
    }
  }

  /** What the run waits on; `envelope_tampered` when that was changed in the database. */
  async pendingApprovals(runId: string): Promise<readonly PendingDurableApproval[]> {
    const row = await this.#row(runId);
    if (!row || (row.status !== "PENDING" && !this.#parkedOf(row))) return [];
    const pending = await this.#pending(runId);
    // A wait answered is over at once, though the run takes the answer only when it goes on (a parked
    // run's continuation waits for a worker): the list it published until then is not asked again.
    const decided = await this.#decisions.decided(runId, pending.map(decisionTopic));
    return pending.filter((item) => !decided.has(decisionTopic(item)));
  }

  /**
   * Puts parked runs whose decision is kept back on the queue (their continuation). `decide` does it for
   * the run it answers; workers call this on their sweep, for a decision given while its run was parking.
   * Returns the ids of the runs continued.
   */
  async resumeAnswered(): Promise<readonly string[]> {
    const continued: string[] = [];
    for (const { runId, topic } of await this.#decisions.untaken()) {
      if (await this.#continue(runId, topic)) continued.push(runId);
    }
    return continued;
  }

  /** The run's status row with its output, or undefined. */
  async #row(runId: string): Promise<WorkflowStatus | undefined> {
    const [row] = await this.#client.listWorkflows({
      workflowName: WORKFLOW_NAME,
      workflowIDs: [runId],
      loadInput: false,
    });
    return row;
  }

  /** What a parked run waits on, when its workflow ended parked (and its output is what it sealed). */
  #parkedOf(row: WorkflowStatus): ParkedRun | undefined {
    if (row.status !== "SUCCESS" || row.output === undefined || row.output === null) return undefined;
    try {
      const output = this.#seal.open<unknown>(
        outcomeScope(row.workflowID),
        row.output,
        `the outcome of run ${row.workflowID}`,
      );
      return isParked(output) ? output : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Rewinds a run parked on `topic` to the step that takes its decision and queues it: a worker replays
   * what it had done from its checkpoints and goes on from there. False when it is not parked there (not
   * yet, or another process continued it first). Done under the run's lock, so where it waits is read
   * and acted on as one: a rewind to an earlier wait would drop the steps done since.
   */
  async #continue(runId: string, topic: string): Promise<boolean> {
    return this.#decisions.exclusive(runId, async () => {
      const row = await this.#row(runId);
      const parked = row ? this.#parkedOf(row) : undefined;
      if (parked?.parked.topic !== topic) return false;
      await this.#client.rewindWorkflow(runId, { startStep: parked.parked.resumeAt, queueName: QUEUE_NAME });
      return true;
    });
  }

  async #pending(runId: string): Promise<readonly PendingDurableApproval[]> {
    const sealed = await this.#client.getEvent<unknown>(runId, PENDING_KEY, 0);
    if (sealed === null || sealed === undefined) return [];
    return this.#seal.open<PendingDurableApproval[]>(
      pendingScope(runId),
      sealed,
      `what run ${runId} waits on`,
    );
  }

  async decide(runId: string, toolCallId: string, decision: ApprovalDecision): Promise<void> {
    const row = await this.#row(runId);
    if (row?.applicationVersion && row.applicationVersion !== this.#appVersion) {
      throw new BridleError(
        "invalid_argument",
        `durable run ${runId} was recorded by run format ${row.applicationVersion}, and this is ${this.#appVersion}: answer it with the Bridle that started it, or start the run again`,
      );
    }
    const pending = await this.pendingApprovals(runId);
    const item = pending.find((candidate) => candidate.toolCallId === toolCallId);
    if (!item) {
      const answered = await this.#decisions.decided(runId, [
        decisionTopic({ toolCallId, kind: "approval" }),
      ]);
      if (answered.size > 0) {
        throw new BridleError(
          "invalid_argument",
          `durable run ${runId}: call ${toolCallId} was decided already; the first decision stands`,
        );
      }
      const waiting = pending.map((item) => item.toolCallId).join(", ") || "nothing";
      throw new BridleError(
        "invalid_argument",
        `durable run ${runId} is not waiting on call ${toolCallId} (it waits on: ${waiting})`,
      );
    }
    // The decision names the arguments it was shown (by digest): the run executes only those.
    const body: DecisionBody = {
      toolCallId,
      kind: item.kind,
      ...(item.attempt === undefined ? {} : { attempt: item.attempt }),
      args: argsDigest(JSON.stringify(item.args)),
      approved: decision.approved,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    };
    const topic = decisionTopic(item);
    // One decision per wait: the first one kept stands.
    await this.#decisions.put(runId, topic, this.#seal.seal(decisionScope(runId, topic), body));
    // A parked run holds no process: its continuation goes on the queue now. A run that is still parking
    // is continued by a worker's next sweep (resumeAnswered); one waiting where it runs takes it there.
    await this.#continue(runId, topic);
  }

  async close(): Promise<void> {
    await this.#client.destroy();
    await this.#decisions.close();
  }
}

export function checkedRunId(runId: string): string {
  if (!RUN_ID.test(runId)) {
    throw new BridleError(
      "invalid_argument",
      `invalid run id ${JSON.stringify(runId.slice(0, 140))}: use 1-128 letters, digits, "-" or "_"`,
    );
  }
  return runId;
}

const STATUS: Record<string, DurableRunStatus> = {
  ENQUEUED: "queued",
  DELAYED: "queued",
  PENDING: "running",
  SUCCESS: "finished",
  ERROR: "failed",
  MAX_RECOVERY_ATTEMPTS_EXCEEDED: "failed",
  CANCELLED: "cancelled",
};

/** How often `wait` looks whether a parked run was continued. */
const PARKED_POLL_MS = 500;

/** DBOS statuses a run does not leave by itself (a parked run's SUCCESS aside). */
const ENDED: Record<string, true> = {
  SUCCESS: true,
  ERROR: true,
  MAX_RECOVERY_ATTEMPTS_EXCEEDED: true,
  CANCELLED: true,
};

/** A run as stored; a parked one (`parked`) is running as far as anyone is concerned, held by no process. */
function runInfo(row: WorkflowStatus, seal: RunSeal, parked: boolean): DurableRunInfo {
  let request: DurableRunRequest | undefined;
  let tampered: string | undefined;
  if (Array.isArray(row.input) && row.input.length > 0) {
    try {
      request = seal.open<DurableRunRequest>(
        requestScope(row.workflowID),
        row.input[0],
        `the request of run ${row.workflowID}`,
      );
    } catch (error) {
      tampered = errorMessage(error);
    }
  }
  let outcome: DurableRunOutcome | undefined;
  if (row.status === "SUCCESS" && row.output && !parked) {
    try {
      outcome = seal.open<DurableRunOutcome>(
        outcomeScope(row.workflowID),
        row.output,
        `the outcome of run ${row.workflowID}`,
      );
    } catch (error) {
      tampered ??= errorMessage(error);
    }
  }
  return {
    runId: row.workflowID,
    status: parked ? "running" : (STATUS[row.status] ?? "failed"),
    createdAt: row.createdAt,
    ...(row.updatedAt === undefined ? {} : { updatedAt: row.updatedAt }),
    ...(request ? { request } : {}),
    ...(outcome ? { outcome } : {}),
    ...(row.error === undefined || row.error === null ? {} : { error: errorText(row.error) }),
    ...(row.executorId && !parked ? { executor: row.executorId } : {}),
    ...(tampered === undefined ? {} : { tampered }),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
}
