// The agent one task run gets: the coding agent `bridle run` ships, built by the same recipe
// (@bridle/coding-agent) from settings the task gives (edit format, permission mode, limits, repair
// attempts). Only the model, the approver and where the agent's data goes differ between modes.
import { join } from "node:path";
import { type CodingAgent, type CodingAgentSettings, createCodingAgent } from "@bridle/coding-agent";
import type { ApprovalDecision, ApprovalRequest, Approver, Harness, SessionStore } from "@bridle/core";
import type { CostedModel } from "@bridle/provider-kit";
import type { SandboxMode } from "@bridle/tools-shell";
import type { TaskSpec } from "./task.js";

export type { SandboxMode };

export interface ComposeOptions {
  readonly workspace: string;
  /** A folder of the run's own, outside the workspace: the agent's spilled output and memory go there. */
  readonly dataDir: string;
  readonly spec: TaskSpec;
  readonly model: CostedModel;
  readonly sandbox: SandboxMode;
  /** Where the run records: the session tools read it. */
  readonly store: SessionStore;
  /**
   * Test only: the command policy and the sandbox are switched off (permission mode full-access) and every
   * approval is granted, to show that the safety tasks' checks fail without the guards. Never a flag.
   */
  readonly unguarded?: boolean;
}

export interface ComposedAgent {
  readonly harness: Harness;
  readonly toolNames: readonly string[];
  /** The sandbox could not start under "auto": why (commands ran unsandboxed). */
  readonly sandboxWarning: string | undefined;
  close(): Promise<void>;
}

/** Nobody sits at a terminal in an eval: asks are answered by the task's approvals setting. */
export function taskApprover(mode: TaskSpec["approvals"]): Approver {
  return {
    decide: async (request: ApprovalRequest): Promise<ApprovalDecision> => {
      if (mode === "checks" && request.toolCall.name === "run_check") return { approved: true };
      return {
        approved: false,
        reason:
          "no one is at a terminal to approve this call (an eval run); only the project's checks are approved",
      };
    },
  };
}

const approveAll: Approver = { decide: async () => ({ approved: true }) };

/** The recipe's settings for a task: the CLI's defaults, with what the task fixes. */
export function taskSettings(
  options: Pick<ComposeOptions, "workspace" | "dataDir" | "spec" | "sandbox" | "unguarded"> & {
    readonly provider: string;
    readonly model: string;
  },
): CodingAgentSettings {
  const { spec } = options;
  return {
    provider: options.provider,
    model: options.model,
    cwd: options.workspace,
    store: "jsonl",
    storeDir: join(options.dataDir, "store"),
    dataDir: options.dataDir,
    maxTurns: spec.limits.maxTurns,
    maxToolCalls: spec.limits.maxToolCalls,
    profile: "generic",
    editFormat: spec.format,
    // Unguarded means no guard at all: the sandbox would otherwise still stop what the policy lets through.
    sandbox: options.unguarded ? "off" : options.sandbox,
    permissionMode: options.unguarded ? "full-access" : spec.permissionMode,
    mcpStartup: "wait",
    coding: { enabled: true, repairAttempts: spec.repairAttempts },
    compaction: true,
    instructions: true,
    subagentDepth: 1,
    keepTasks: false,
    memory: true,
    agentFiles: [],
  };
}

/** A task run's agent (in-process, or for a queued run with `mode: "durable"`). */
export function taskAgent(options: ComposeOptions, mode: "run" | "durable"): Promise<CodingAgent> {
  return createCodingAgent(
    taskSettings({ ...options, provider: options.model.provider, model: options.model.model }),
    {
      mode,
      model: options.model,
      store: options.store,
      ...(mode === "run"
        ? { approver: options.unguarded ? approveAll : taskApprover(options.spec.approvals) }
        : {}),
      // The eval's own output is its results; the recipe's lines (instructions read, a sandbox warning)
      // are noted per run instead (`sandboxWarning`).
      warn: () => {},
    },
  );
}

export async function composeAgent(options: ComposeOptions): Promise<ComposedAgent> {
  const agent = await taskAgent(options, "run");
  return {
    harness: agent.harness,
    toolNames: (agent.options.tools ?? []).map((tool) => tool.name),
    sandboxWarning: agent.sandboxWarning,
    close: () => agent.close(),
  };
}
