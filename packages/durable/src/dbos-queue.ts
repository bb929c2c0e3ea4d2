// The queue and its runs seen through DBOS's client: what `bridle run --enqueue` and `bridle runs` use.
// Nothing executes here, so no DBOS launch is needed.

import { randomUUID } from "node:crypto";
import { type ApprovalDecision, BridleError } from "@bridle/core";
import { DBOSClient, type WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { decisionTopic, PENDING_KEY } from "./durable-approver.js";
import type {
  DurableRunInfo,
  DurableRunOutcome,
  DurableRunRequest,
  DurableRunStatus,
  PendingDurableApproval,
  RunQueue,
} from "./engine.js";
import { DEFAULT_MIGRATE_TIMEOUT_MS, migrateSchema } from "./schema-migration.js";

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
export const RUN_FORMAT_VERSION = "bridle-run-1";

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
}

const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

export class DbosRunQueue implements RunQueue {
  readonly #client: DBOSClient;
  readonly #appVersion: string;

  private constructor(client: DBOSClient, appVersion: string) {
    this.#client = client;
    this.#appVersion = appVersion;
  }

  /** Connects, creating DBOS's tables first if no engine has yet (a run may be queued before any worker starts). */
  static async open(connection: DbosConnection): Promise<DbosRunQueue> {
    await migrateSchema(connection.databaseUrl, connection.schema ?? DEFAULT_SCHEMA, {
      timeoutMs: connection.migrateTimeoutMs ?? DEFAULT_MIGRATE_TIMEOUT_MS,
      always: false,
    });
    const client = await DBOSClient.create({
      systemDatabaseUrl: connection.databaseUrl,
      systemDatabaseSchemaName: connection.schema ?? DEFAULT_SCHEMA,
      applicationName: APP_NAME,
      systemDatabasePoolSize: 4,
    });
    return new DbosRunQueue(client, connection.appVersion ?? RUN_FORMAT_VERSION);
  }

  async enqueue(request: DurableRunRequest, options: { readonly runId?: string } = {}): Promise<string> {
    const runId = checkedRunId(options.runId ?? randomUUID());
    await this.#client.enqueue(
      { queueName: QUEUE_NAME, workflowName: WORKFLOW_NAME, workflowID: runId, appVersion: this.#appVersion },
      request,
    );
    return runId;
  }

  async list(options: { readonly limit?: number } = {}): Promise<readonly DurableRunInfo[]> {
    const rows = await this.#client.listWorkflows({
      workflowName: WORKFLOW_NAME,
      sortDesc: true,
      limit: options.limit ?? 50,
    });
    return rows.map(runInfo);
  }

  async get(runId: string): Promise<DurableRunInfo | undefined> {
    const [row] = await this.#client.listWorkflows({ workflowName: WORKFLOW_NAME, workflowIDs: [runId] });
    return row ? runInfo(row) : undefined;
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

  async pendingApprovals(runId: string): Promise<readonly PendingDurableApproval[]> {
    const info = await this.get(runId);
    if (info?.status !== "running") return [];
    return (await this.#client.getEvent<PendingDurableApproval[]>(runId, PENDING_KEY, 0)) ?? [];
  }

  async decide(runId: string, toolCallId: string, decision: ApprovalDecision): Promise<void> {
    const pending = await this.pendingApprovals(runId);
    if (!pending.some((item) => item.toolCallId === toolCallId)) {
      const waiting = pending.map((item) => item.toolCallId).join(", ") || "nothing";
      throw new BridleError(
        "invalid_argument",
        `durable run ${runId} is not waiting on call ${toolCallId} (it waits on: ${waiting})`,
      );
    }
    const message: ApprovalDecision =
      decision.reason === undefined
        ? { approved: decision.approved }
        : { approved: decision.approved, reason: decision.reason };
    // One decision per call: a second send with the same key is dropped.
    await this.#client.send(runId, message, decisionTopic(toolCallId), `${runId}:${toolCallId}`);
  }

  async close(): Promise<void> {
    await this.#client.destroy();
  }
}

function checkedRunId(runId: string): string {
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

function runInfo(row: WorkflowStatus): DurableRunInfo {
  const request = Array.isArray(row.input) ? (row.input[0] as DurableRunRequest | undefined) : undefined;
  return {
    runId: row.workflowID,
    status: STATUS[row.status] ?? "failed",
    createdAt: row.createdAt,
    ...(row.updatedAt === undefined ? {} : { updatedAt: row.updatedAt }),
    ...(request ? { request } : {}),
    ...(row.status === "SUCCESS" && row.output ? { outcome: row.output as DurableRunOutcome } : {}),
    ...(row.error === undefined || row.error === null ? {} : { error: errorText(row.error) }),
    ...(row.executorId ? { executor: row.executorId } : {}),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
}
