import type { z } from "zod";
import type { ApprovalScope, Approver } from "./approver.js";
import type { SubagentHooks } from "./hooks.js";
import type { ToolResultContent } from "./messages.js";
import type { Model, ToolInputFormat } from "./model.js";
import type { Workspace } from "./workspace.js";

/** What a tool promises about its effects. A missing hint means false. */
export interface ToolAnnotations {
  readonly read_only?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly open_world?: boolean;
  /** The run asks its Approver before executing the call. */
  readonly requires_approval?: boolean;
  /**
   * Running the same call again (same `toolCallId`) after an earlier attempt may have taken effect does no
   * harm: the tool detects that it already landed (see `ToolCallEnv.repeated`). A durable runner re-runs
   * such a call after a crash without asking; a call to a tool that is not read_only, idempotent or
   * repeat_safe is asked about instead.
   */
  readonly repeat_safe?: boolean;
  /**
   * The call's work is child runs it starts (a subagent) and builds from `ToolCallEnv.childRuns` when that
   * is given; it has no effect of its own. A runner that records each run's steps (a durable run) then
   * records the child's model requests and tool calls under this call, instead of the call as one step.
   */
  readonly starts_runs?: boolean;
}

/**
 * What one call's `execute` runs with: its abort signal, workspace, run and call ids, a progress channel,
 * and the run's subagent hooks. Per call, not per tool: `toolCallId`, `repeated` and `signal` belong to this
 * call alone. (Named "env", not "context": in Bridle "context" means only what the model sees.)
 */
export interface ToolCallEnv {
  readonly signal: AbortSignal;
  readonly workspace: Workspace;
  readonly runId: string;
  /** Unique per call in its run and stable across a re-run of the call: an idempotency key. */
  readonly toolCallId: string;
  /**
   * Set when an earlier attempt of this very call started and its end was never recorded (the process
   * died mid-call): its effect may already be there. A repeat_safe tool looks before acting again.
   */
  readonly repeated?: boolean;
  /** Report progress (output lines, percentages): it reaches the run's event stream as `tool_progress`. */
  progress(data: unknown): void;
  /** The run's subagent hooks, for a tool that starts a child run (set by the harness). */
  readonly hooks?: SubagentHooks;
  /**
   * Given to a `starts_runs` tool by a runner that records each run's steps (a durable run): build the
   * child run from it, so the child's requests and calls are recorded under this call and replayed, not
   * repeated, when the run is executed again after a crash.
   */
  readonly childRuns?: ChildRuns;
}

/**
 * How a tool starts a child run inside a run whose steps are recorded. The child must run to its end
 * within the call (not in the background): its steps take their places among the parent's.
 */
export interface ChildRuns {
  /** The child run's id: the same on every execution of this call. */
  readonly runId: string;
  /** `model`, each request of the child recorded. */
  model(model: Model): Model;
  /** `tool`, each call of the child recorded (and a call interrupted by a crash repeated only as it allows). */
  tool(tool: AnyTool): AnyTool;
  /** `approver`, each decision for the child recorded (a later execution gets the same answer). */
  approver(approver: Approver): Approver;
}

/** @deprecated use ToolCallEnv (kept for one release) */
export type ToolContext = ToolCallEnv;

/** What `needsApproval` gets: the part of a call's env known before it runs. */
export type ApprovalCheckEnv = Pick<ToolCallEnv, "runId" | "workspace" | "signal">;

export interface ToolOutput<D = unknown> {
  /** What the model sees. */
  readonly content: string | readonly ToolResultContent[];
  /** What interfaces see; never sent to the model. */
  readonly details?: D;
  /** A result the model should read as a failure, though the call itself ran (the tool decided). */
  readonly isError?: boolean;
}

export interface Tool<S extends z.ZodType = z.ZodType, D = unknown> {
  readonly name: string;
  readonly description: string;
  /** Enforced on every call; the JSON Schema the model sees is derived from it. */
  readonly inputSchema: S;
  /** A free-form input an adapter may offer instead of JSON (the schema is then `{ input: string }`). */
  readonly format?: ToolInputFormat;
  readonly annotations?: ToolAnnotations;
  /** When any call in a batch is to a sequential tool, the whole batch runs one call at a time, in order. */
  readonly sequential?: boolean;
  /** How many model-correctable failures of this tool a run tolerates before it stops. */
  readonly retryBudget?: number;
  /** Milliseconds before the call is aborted and the model sees Timeout. */
  readonly timeoutMs?: number;
  /**
   * Runs on the parsed JSON before schema validation, so the tool can accept spellings models commonly
   * send for its own fields (`filePath` for `path`: see `argumentAliases`). Deterministic, from the
   * arguments alone: never infer a missing value from history. A throw is an InvalidInput the model sees.
   */
  prepareArguments?(raw: unknown): PreparedArguments;
  /**
   * Per-call approval, for tools whose risk depends on the arguments (a shell command policy that asks
   * only for commands it cannot allow). Called with the validated arguments; true sends the call to the
   * approver exactly as `annotations.requires_approval` does. A throw counts as true.
   */
  needsApproval?(args: z.output<S>, env: ApprovalCheckEnv): boolean | Promise<boolean>;
  /**
   * For a call that goes to the approver: how far "always" may reach and why the call needs a person
   * (`ApprovalRequest.scope`, its `why`). The one place a tool says why it asks: answer it from what
   * `needsApproval` already worked out, never by judging the call again. Without it "always" covers the
   * whole tool. A throw offers no "always" for the call.
   */
  approvalScope?(args: z.output<S>, env: ApprovalCheckEnv): ApprovalScope | Promise<ApprovalScope>;
  execute(args: z.output<S>, env: ToolCallEnv): Promise<ToolOutput<D>>;
}

/** What `prepareArguments` hands on to validation, with a note per change (they reach `tool_call_requested`). */
export interface PreparedArguments {
  readonly args: unknown;
  readonly repairs: readonly string[];
}

/** Any tool, whatever its schema: what the harness holds. */
// biome-ignore lint/suspicious/noExplicitAny: a tool list is heterogeneous in its argument types
export type AnyTool = Tool<any, unknown>;

/** Identity helper that infers the argument type of `execute` from the schema. */
export function defineTool<S extends z.ZodType, D = unknown>(tool: Tool<S, D>): Tool<S, D> {
  return tool;
}
