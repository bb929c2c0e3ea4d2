import { randomUUID } from "node:crypto";
import {
  type AnyHook,
  type AnyTool,
  BridleError,
  type ChildRuns,
  defineHook,
  Harness,
  type HarnessOptions,
  type Message,
  type Model,
  type RunEvent,
  type ToolCallEnv,
  ToolFailure,
} from "@bridle/core";
import { type ChildEventMode, carries, type SubagentEventData } from "./child-events.js";
import { checkDefinition, type SubagentDefinition } from "./definition.js";
import { depthOf, isSpawning, markSpawning, registerChild } from "./depth.js";
import { AgentTask, type TaskStatus } from "./task.js";
import { AGENT_TOOL_NAMES, agentTools } from "./tools/agent-tools.js";
import { type TaskReport, taskReport } from "./tools/report.js";
import { taskTools } from "./tools/task-tools.js";

/** What children may inherit: the parent harness's own options (pass the object you build it from). */
export type ParentOptions = Pick<
  HarnessOptions,
  "model" | "tools" | "hooks" | "strictHooks" | "limits" | "context" | "approver" | "modelOptions"
>;

export interface AgentsOptions {
  /** The named subagents the model can spawn (see also `loadAgentDefinitions`). */
  readonly agents: readonly SubagentDefinition[];
  /**
   * The parent's configuration. A child gets the parent's model unless its definition names one; the
   * parent's tools filtered by the definition's allowlist (MCP-discovered tools included, as the plain
   * tools they are); the parent's hooks and limits unless the definition opts out; its context options
   * (compaction, spilling) and approver. Never the agent tools: recursion is impossible.
   */
  readonly parent: ParentOptions;
  /** Models a definition may name by key (`model: fast` in a markdown file). */
  readonly models?: Readonly<Record<string, Model>>;
  /** Child events carried in the parent's stream while the spawning call runs (default "lifecycle"). */
  readonly childEvents?: ChildEventMode;
  /**
   * Every event of every child run, foreground or background (a UI, a log). `carried` tells whether the
   * event also travels in the parent's stream (inside the spawning call's `tool_progress`).
   */
  readonly onEvent?: (event: RunEvent, carried: boolean) => void;
  /** Live subagents at most (default 16); spawning more is refused with LimitExceeded. */
  readonly maxAgents?: number;
  /**
   * How deep subagents nest (default 1): at 1 the parent spawns and no child does; at 2 a child may spawn
   * children of its own, and so on. Enforced on every spawn and send by the depth of the calling run, so a
   * renamed or wrapped copy of the spawn tool is held to it too.
   */
  readonly maxDepth?: number;
  /**
   * What happens to a run's tasks that still run when it ends (see `hooks`): "stop" (the default) cancels
   * them and waits until they stopped, so they make no model request after the run; "keep" leaves them
   * running. Either way the run records a `fact` of kind "agents.tasks" listing them.
   */
  readonly atRunEnd?: "stop" | "keep";
}

/** The data of the "agents.tasks" fact a run records at its end when it started any task. */
export interface RunTasksFact {
  /** Tasks that were still running when the run ended, and were stopped. */
  readonly stopped: readonly TaskReport[];
  /** Tasks that were still running and were left running (`atRunEnd: "keep"`). */
  readonly leftRunning: readonly TaskReport[];
  /** Tasks the run started that had ended before it did. */
  readonly ended: readonly TaskReport[];
}

/** A spawned subagent: its configuration, its child harness and the conversation it has had so far. */
export interface LiveAgent {
  readonly key: string;
  readonly label: string | undefined;
  readonly definition: SubagentDefinition;
  readonly harness: Harness;
  messages: readonly Message[];
  current: AgentTask | undefined;
  runs: number;
}

/**
 * Subagents and their tasks for one application. `tools` are the model-facing tools to add to the parent
 * harness: agent_spawn, agent_send, agent_list, task_output, task_cancel, task_list. Live agents and
 * background tasks belong to this object, not to a run: a task started in one run can be polled in the next
 * (its id is in the transcript). `close()` cancels whatever still runs.
 */
export class Agents {
  readonly definitions: ReadonlyMap<string, SubagentDefinition>;
  readonly tools: readonly AnyTool[];
  /**
   * Add these to the parent harness's hooks: at the end of a run they stop (or keep) the tasks the run
   * started and record which (see `atRunEnd`). Children get them without asking.
   */
  readonly hooks: readonly AnyHook[];
  readonly #options: AgentsOptions;
  readonly #childTools: ReadonlyMap<string, AnyTool>;
  readonly #agents = new Map<string, LiveAgent>();
  readonly #tasks = new Map<string, AgentTask>();
  readonly #counters = new Map<string, number>();

  constructor(options: AgentsOptions) {
    this.#options = options;
    if (options.agents.length === 0)
      throw new BridleError("invalid_config", "give at least one subagent definition");
    const maxDepth = options.maxDepth ?? 1;
    if (!Number.isInteger(maxDepth) || maxDepth < 1) {
      throw new BridleError(
        "invalid_config",
        `maxDepth must be a whole number of at least 1 (got ${maxDepth})`,
      );
    }
    const definitions = new Map<string, SubagentDefinition>();
    const childTools = new Map<string, AnyTool>();
    for (const tool of options.parent.tools ?? []) {
      if (!isSpawning(tool) && !AGENT_TOOL_NAMES.has(tool.name)) childTools.set(tool.name, tool);
    }
    this.#childTools = childTools;
    for (const given of options.agents) {
      const definition = checkDefinition(given, `subagent "${String(given.name)}"`);
      if (definitions.has(definition.name)) {
        throw new BridleError("invalid_config", `two subagents are named "${definition.name}"`);
      }
      for (const name of definition.tools ?? []) {
        if (AGENT_TOOL_NAMES.has(name) && maxDepth > 1) continue;
        if (AGENT_TOOL_NAMES.has(name)) {
          throw new BridleError(
            "invalid_config",
            `subagent "${definition.name}" lists "${name}": a subagent cannot spawn subagents (maxDepth is 1)`,
          );
        }
        if (!childTools.has(name)) {
          throw new BridleError(
            "invalid_config",
            `subagent "${definition.name}" lists tool "${name}", which the parent does not have (it has: ${[...childTools.keys()].join(", ") || "none"})`,
          );
        }
      }
      if (typeof definition.model === "string" && !options.models?.[definition.model]) {
        throw new BridleError(
          "invalid_config",
          `subagent "${definition.name}" names model "${definition.model}", which is not in options.models`,
        );
      }
      definitions.set(definition.name, definition);
    }
    this.definitions = definitions;
    this.tools = [...agentTools(this), ...taskTools(this)].map(markSpawning);
    this.hooks = [
      defineHook({
        event: "run_end",
        name: "agents: tasks at run end",
        handler: async (input) => {
          const fact = await this.endRun(input.runId);
          if (fact) input.record?.("agents.tasks", fact);
        },
      }),
    ];
  }

  get maxDepth(): number {
    return this.#options.maxDepth ?? 1;
  }

  /**
   * The tasks run `runId` started: those still running are stopped (and waited for) or left running, as
   * `atRunEnd` says. Undefined when the run started none. The run_end hook in `hooks` calls it.
   */
  async endRun(runId: string): Promise<RunTasksFact | undefined> {
    const started = this.tasks().filter((task) => task.parentRunId === runId);
    if (started.length === 0) return undefined;
    const running = started.filter((task) => task.status === "running");
    const keep = this.#options.atRunEnd === "keep";
    if (!keep) {
      for (const task of running) task.cancel("the run that started it ended");
      await Promise.all(running.map((task) => task.done.catch(() => undefined)));
    }
    const reports = (tasks: readonly AgentTask[]) => tasks.map((task) => taskReport(task));
    return {
      stopped: keep ? [] : reports(running),
      leftRunning: keep ? reports(running) : [],
      ended: reports(started.filter((task) => !running.includes(task))),
    };
  }

  get maxAgents(): number {
    return this.#options.maxAgents ?? 16;
  }

  /** Live agents, oldest first. */
  agents(): LiveAgent[] {
    return [...this.#agents.values()];
  }

  tasks(status: TaskStatus | "all" = "all"): AgentTask[] {
    const all = [...this.#tasks.values()];
    return status === "all" ? all : all.filter((task) => task.status === status);
  }

  task(id: string): AgentTask | undefined {
    return this.#tasks.get(id);
  }

  /** The live agent with this key or label. */
  find(keyOrLabel: string): LiveAgent | undefined {
    const byKey = this.#agents.get(keyOrLabel);
    if (byKey) return byKey;
    for (const agent of this.#agents.values()) if (agent.label === keyOrLabel) return agent;
    return undefined;
  }

  /** A new live agent for a definition: its own child harness, no conversation yet. */
  spawn(name: string, label: string | undefined, env: ToolCallEnv): LiveAgent {
    this.#checkDepth(env);
    const definition = this.definitions.get(name);
    if (!definition) {
      throw new ToolFailure(
        "NotFound",
        `there is no subagent "${name}". Available: ${[...this.definitions.keys()].join(", ")}`,
      );
    }
    if (this.#agents.size >= this.maxAgents) {
      throw new ToolFailure(
        "LimitExceeded",
        `${this.maxAgents} subagents are live already, the most allowed`,
      );
    }
    if (label !== undefined && this.find(label)) {
      throw new ToolFailure("Conflict", `a live subagent is already labelled "${label}"; pick another label`);
    }
    const count = (this.#counters.get(name) ?? 0) + 1;
    this.#counters.set(name, count);
    const key = `${name}-${count}`;
    const agent: LiveAgent = {
      key,
      label,
      definition,
      harness: this.#childHarness(definition, env),
      messages: [],
      current: undefined,
      runs: 0,
    };
    this.#agents.set(key, agent);
    return agent;
  }

  /**
   * Starts the agent on a prompt (its conversation so far is the history). Fires before_subagent_run
   * first (a cancel is a Denied result). While the spawning call runs, child events are carried in the
   * parent's stream through `env.progress`; afterwards only `onEvent` sees them.
   */
  async start(agent: LiveAgent, prompt: string, env: ToolCallEnv): Promise<AgentTask> {
    const depth = this.#checkDepth(env) + 1;
    if (agent.current && agent.current.status === "running") {
      throw new ToolFailure(
        "Conflict",
        `${agent.key} is still working on ${agent.current.id}: wait for it with task_output or stop it with task_cancel`,
      );
    }
    const verdict = await env.hooks?.beforeSubagentRun({
      subagent: agent.definition.name,
      prompt,
      toolCallId: env.toolCallId,
    });
    if (verdict?.cancelled)
      throw new ToolFailure("Denied", `the subagent run was blocked: ${verdict.reason}`);
    const controller = new AbortController();
    // In a run that records its steps the child is rebuilt for this call, so its requests and calls are
    // recorded under it, and its id is the same on every execution of the call.
    const scope = env.childRuns;
    const runId = scope?.runId ?? randomUUID();
    const harness = scope ? this.#childHarness(agent.definition, env, scope) : agent.harness;
    const forget = registerChild(runId, depth);
    const stream = harness.stream({
      runId,
      prompt,
      history: agent.messages,
      parentRunId: env.runId,
      parentToolCallId: env.toolCallId,
      signal: controller.signal,
    });
    const mode = this.#options.childEvents ?? "lifecycle";
    const forwarding = { on: true };
    const pump = (async () => {
      for await (const event of stream) {
        const carried = forwarding.on && carries(mode, event);
        this.#options.onEvent?.(event, carried);
        if (carried) {
          const data: SubagentEventData = { type: "subagent_event", event };
          env.progress(data);
        }
      }
    })();
    // A durable run's record names the task (the model reads its id): the same id on every execution.
    const taskId = scope ? `task_${runId.replaceAll("-", "").slice(0, 16)}` : undefined;
    const task = new AgentTask(agent.key, prompt, stream, pump, env.runId, taskId);
    task.done.then(forget, forget);
    // The task's own controller is what task_cancel and close() abort; it reaches the child run.
    task.controller.signal.addEventListener("abort", () => controller.abort(task.controller.signal.reason), {
      once: true,
    });
    task.stopForwarding = () => {
      forwarding.on = false;
    };
    agent.current = task;
    agent.runs++;
    this.#tasks.set(task.id, task);
    task.done.then((result) => {
      agent.messages = result.messages;
    });
    return task;
  }

  /** Fires after_subagent_run for a finished task, once, inside a call of the parent run. */
  async report(task: AgentTask, env: ToolCallEnv): Promise<void> {
    if (task.reported || !task.result) return;
    task.reported = true;
    const agent = this.#agents.get(task.agentKey);
    await env.hooks?.afterSubagentRun({
      subagent: agent?.definition.name ?? task.agentKey,
      toolCallId: env.toolCallId,
      stopReason: task.result.stopReason,
      finalText: task.result.finalText,
    });
  }

  /** Forgets an idle agent (a spawn whose first run was refused). */
  forget(key: string): void {
    const agent = this.#agents.get(key);
    if (agent && agent.current?.status !== "running") this.#agents.delete(key);
  }

  /** Cancels every running task and forgets the live agents. */
  async close(): Promise<void> {
    const running = this.tasks("running");
    for (const task of running) task.cancel("the agents were closed");
    await Promise.all(running.map((task) => task.done));
    this.#agents.clear();
  }

  /** The calling run's depth; refuses the call when a run that deep may not start subagents. */
  #checkDepth(env: ToolCallEnv): number {
    const depth = depthOf(env.runId);
    if (depth >= this.maxDepth) {
      throw new ToolFailure(
        "Denied",
        `a subagent at depth ${depth} cannot start subagents (the most nesting allowed is ${this.maxDepth}); do the work yourself`,
      );
    }
    return depth;
  }

  #childHarness(definition: SubagentDefinition, env: ToolCallEnv, scope?: ChildRuns): Harness {
    const parent = this.#options.parent;
    // The child's own spawns are allowed only below the depth limit; then it gets this Agents' tools.
    const own = depthOf(env.runId) + 1 < this.maxDepth ? this.tools : [];
    const available = new Map([...this.#childTools, ...own.map((tool) => [tool.name, tool] as const)]);
    const names = definition.tools ?? [...available.keys()];
    const tools = names.flatMap((name) => {
      const tool = available.get(name);
      return tool ? [scope ? scope.tool(tool) : tool] : [];
    });
    const chosen =
      definition.model === undefined
        ? parent.model
        : typeof definition.model === "string"
          ? (this.#options.models?.[definition.model] as Model)
          : definition.model;
    const model = scope ? scope.model(chosen) : chosen;
    const approver = parent.approver && scope ? scope.approver(parent.approver) : parent.approver;
    const inheritHooks = definition.inheritHooks ?? true;
    const inheritLimits = definition.inheritLimits ?? true;
    const limits = { ...(inheritLimits ? parent.limits : {}), ...definition.limits };
    return new Harness({
      model,
      tools,
      workspace: env.workspace,
      agentName: definition.name,
      limits,
      ...(definition.system === undefined ? {} : { system: definition.system }),
      // The run-end hook always: a child's own background tasks stop when the child's run ends.
      hooks: [...(inheritHooks ? (parent.hooks ?? []) : []), ...this.hooks],
      ...(inheritHooks && parent.hooks ? { strictHooks: parent.strictHooks ?? false } : {}),
      ...(parent.context ? { context: parent.context } : {}),
      ...(approver ? { approver } : {}),
      ...(parent.modelOptions && definition.model === undefined ? { modelOptions: parent.modelOptions } : {}),
    });
  }
}
