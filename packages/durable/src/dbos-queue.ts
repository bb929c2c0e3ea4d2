// The queue and its runs seen through DBOS's client: what `bridle run --enqueue` and `bridle runs` use.
// Nothing executes here, so no DBOS launch is needed.

import { randomUUID } from "node:crypto";
import { type ApprovalDecision, BridleError, errorMessage, loadOrCreateApprovalSecret } from "@bridle/core";
import { DBOSClient, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { dbosDatabaseUrl } from "./database-url.js";
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
import { DEFAULT_MIGRATE_TIMEOUT_MS, migrateSchema } from "./schema-migration.js";
import { argsDigest, RunSeal } from "./seal.js";

/** Names DBOS keeps Bridle's runs under. */
export const APP_NAME = "bridle";
export const WORKFLOW_NAME = "bridle_run";
export const QUEUE_NAME = "bridle_runs";
export const DEFAULT_SCHEMA = "bridle_durable";
/**
 * The version of the run's step layout. Recovery only resumes a run in a process of the same version
 * (DBOS's application version): raise it when run-body.ts, durable-model.ts or durable-tool.ts change
 * the steps a run records.
 */
export const RUN_FORMAT_VERSION = "bridle-run-3";

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

  private constructor(client: DBOSClient, appVersion: string, seal: RunSeal) {
    this.#client = client;
    this.#appVersion = appVersion;
    this.#seal = seal;
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
    return new DbosRunQueue(client, connection.appVersion ?? RUN_FORMAT_VERSION, seal);
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
    const info = runInfo(row, this.#seal);
    if (info.status !== "running" && info.status !== "queued") return info;
    const steps = (await this.#client.listWorkflowSteps(row.workflowID)) ?? [];
    // DBOS's own operations (events, messages, sleeps) are steps too; the run's own say where it is.
    const last = steps.filter((step) => !step.name.startsWith("DBOS.")).at(-1);
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
    // getResult rethrows a failed run's error; the run's record says what happened either way.
    await this.#client
      .retrieveWorkflow(runId)
      .getResult()
      .catch(() => {});
    const info = await this.get(runId);
    if (!info) throw new BridleError("not_found", `durable run ${runId} disappeared while waiting`);
    return info;
  }

  /** What the run waits on; `envelope_tampered` when that was changed in the database. */
  async pendingApprovals(runId: string): Promise<readonly PendingDurableApproval[]> {
    const [row] = await this.#client.listWorkflows({
      workflowName: WORKFLOW_NAME,
      workflowIDs: [runId],
      loadInput: false,
      loadOutput: false,
    });
    if (row?.status !== "PENDING") return [];
    return this.#pending(runId);
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
    const pending = await this.pendingApprovals(runId);
    const item = pending.find((candidate) => candidate.toolCallId === toolCallId);
    if (!item) {
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
    // One decision per wait: a second send with the same key is dropped.
    await this.#client.send(
      runId,
      this.#seal.seal(decisionScope(runId, topic), body),
      topic,
      `${runId}:${topic}`,
    );
  }

  async close(): Promise<void> {
    await this.#client.destroy();
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

function runInfo(row: WorkflowStatus, seal: RunSeal): DurableRunInfo {
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
  if (row.status === "SUCCESS" && row.output) {
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
    status: STATUS[row.status] ?? "failed",
    createdAt: row.createdAt,
    ...(row.updatedAt === undefined ? {} : { updatedAt: row.updatedAt }),
    ...(request ? { request } : {}),
    ...(outcome ? { outcome } : {}),
    ...(row.error === undefined || row.error === null ? {} : { error: errorText(row.error) }),
    ...(row.executorId ? { executor: row.executorId } : {}),
    ...(tampered === undefined ? {} : { tampered }),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
}
