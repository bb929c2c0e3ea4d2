// The engine-neutral contract: what a durable run needs from a durable-execution engine, and what an
// application (the CLI, a server) sees of runs and their queue. Only DBOS implements it (dbos-engine.ts).
import type {
  AnyTool,
  ApprovalDecision,
  EventObserver,
  HarnessOptions,
  Model,
  SessionStore,
  StopReason,
} from "@bridle/core";

/** Plain JSON, as a run's recorded options must be (they travel through the database). */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** What a durable run is asked to do. Recorded with the run: never put an API key in `options`. */
export interface DurableRunRequest {
  readonly prompt: string;
  /** The session the run records into (created if missing) and continues. */
  readonly sessionId: string;
  /** The run's own settings (provider, model, workspace…), given to `compose`; a worker fills in the rest. */
  readonly options?: { readonly [key: string]: JsonValue };
}

/** What a run is built from in the process that executes it: `compose` returns it for each request. */
export interface DurableAgent {
  readonly model: Model;
  readonly tools: readonly AnyTool[];
  /** Where the run's events go, and the session's earlier history comes from. */
  readonly store: SessionStore;
  /** The rest of the harness's configuration (system prompt, limits, hooks, workspace…). */
  readonly harness?: Omit<HarnessOptions, "model" | "tools" | "approver">;
  /**
   * Watch the run without being its record (a tracer, with a subagent's events unwrapped by
   * `withSubagentEvents` of `@bridle/agents`). An execution after a crash emits the run's events again
   * from its steps, so an observer in the process that finishes a run sees all of it.
   */
  readonly observers?: readonly EventObserver[];
  /** Approve every call that needs approval without waiting (a run started with --yes). Re-runs still wait. */
  readonly autoApprove?: boolean;
  /**
   * Run again, without asking, a call that had started when a process died and whose tool cannot tell
   * whether it took effect (default false: a person decides each such repeat, --yes or not).
   */
  readonly autoApproveRepeats?: boolean;
  close?(): Promise<void>;
}

export type ComposeAgent = (request: DurableRunRequest) => Promise<DurableAgent>;

/** How a durable run ended (the run itself, not the engine: a failed model call is `completed: false`). */
export interface DurableRunOutcome {
  readonly sessionId: string;
  readonly stopReason: StopReason;
  readonly finalText: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export type DurableRunStatus = "queued" | "running" | "finished" | "failed" | "cancelled";

export interface DurableRunInfo {
  readonly runId: string;
  /** finished: the run ended (see outcome.stopReason); failed: the engine gave up on it. */
  readonly status: DurableRunStatus;
  readonly createdAt: number;
  readonly updatedAt?: number;
  readonly request?: DurableRunRequest;
  readonly outcome?: DurableRunOutcome;
  /** The engine's error, when status is failed. */
  readonly error?: string;
  /** The process (engine executor) that runs or last ran it. */
  readonly executor?: string;
  /** What a running run waits on a person for (empty or absent: it is not waiting). */
  readonly waitingOn?: readonly PendingDurableApproval[];
  /** The run's last recorded step and when it was recorded (epoch ms). */
  readonly lastStep?: { readonly name: string; readonly at?: number };
  /**
   * Why what the database holds for this run is refused (its request or pending calls were changed after
   * they were recorded); `request` and `waitingOn` are then absent. A worker refuses to execute it.
   */
  readonly tampered?: string;
}

/** A call a durable run waits on: decide it with `RunQueue.decide`, from any process. */
export interface PendingDurableApproval {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args: JsonValue;
  /** Why it waits: "approval" (the tool needs it) or "repeat" (it may have run before a crash). */
  readonly kind: "approval" | "repeat";
  /** For a repeat: the attempt it would run (1: the first repeat). */
  readonly attempt?: number;
  readonly message: string;
}

/** The queue and the runs in it, as any process sees them (no run executes here). */
export interface RunQueue {
  /** Queues a run for the workers; resolves with its run id once it is stored. */
  enqueue(request: DurableRunRequest, options?: { readonly runId?: string }): Promise<string>;
  list(options?: { readonly limit?: number }): Promise<readonly DurableRunInfo[]>;
  get(runId: string): Promise<DurableRunInfo | undefined>;
  /** Resolves when the run is finished, failed or cancelled. */
  wait(runId: string): Promise<DurableRunInfo>;
  pendingApprovals(runId: string): Promise<readonly PendingDurableApproval[]>;
  /** Answers a call the run waits on; the run goes on in whichever process holds it. */
  decide(runId: string, toolCallId: string, decision: ApprovalDecision): Promise<void>;
  close(): Promise<void>;
}

/** An engine launched in this process: it executes runs, here or pulled from the queue. */
export interface DurableEngine extends RunQueue {
  /** This process's executor id (runs it holds name it). */
  readonly executorId: string;
  /** Runs `request` here as a durable run; if this process dies, a worker finishes it. */
  start(request: DurableRunRequest, options?: { readonly runId?: string }): Promise<DurableHandle>;
  /** Hands every unfinished run whose process is gone to the queue; returns their ids. */
  recoverOrphans(): Promise<readonly string[]>;
}

export interface DurableHandle {
  readonly runId: string;
  readonly outcome: Promise<DurableRunOutcome>;
}
