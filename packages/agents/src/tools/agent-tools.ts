import { type AnyTool, defineTool, type ToolCallEnv, ToolFailure } from "@bridle/core";
import { z } from "zod";
import type { Agents } from "../agents.js";
import { awaitTask } from "./report.js";

export const AGENT_TOOL_NAMES: ReadonlySet<string> = new Set([
  "agent_spawn",
  "agent_send",
  "agent_list",
  "task_output",
  "task_cancel",
  "task_list",
]);

/** Seconds a spawn or send waits for the child: 0 runs it in the background. */
const timeoutSeconds = z
  .number()
  .int()
  .min(0)
  .max(600)
  .default(30)
  .describe("Seconds to wait for the answer (default 30, at most 600). 0 runs it in the background.");

export function agentTools(agents: Agents): AnyTool[] {
  const names = [...agents.definitions.keys()] as [string, ...string[]];
  const catalog = [...agents.definitions.values()].map((d) => `- ${d.name}: ${d.description}`).join("\n");

  const spawn = defineTool({
    name: "agent_spawn",
    description: `Start a subagent: a separate agent with its own tools, budget and instructions that works on a task and reports back. Use it for self-contained work (research, review, a focused change) so your own context stays small. It waits up to timeout_seconds for the answer; timeout_seconds 0 runs it in the background (poll with task_output). Omit task to only create it, then talk to it with agent_send.\nSubagents:\n${catalog}`,
    inputSchema: z.object({
      agent_id: z.enum(names).describe("Which subagent to start"),
      task: z.string().min(1).optional().describe("What it should do; omit to create it without a task"),
      label: z.string().min(1).max(64).optional().describe("A name to address it by in agent_send"),
      timeout_seconds: timeoutSeconds,
    }),
    annotations: { starts_runs: true },
    execute: async (args, ctx) => {
      inForeground(args.timeout_seconds, ctx);
      const agent = agents.spawn(args.agent_id, args.label, ctx);
      if (args.task === undefined) {
        const report = {
          agent_key: agent.key,
          ...(agent.label ? { label: agent.label } : {}),
          status: "idle",
        };
        return { content: JSON.stringify(report, null, 2), details: report };
      }
      let task: Awaited<ReturnType<Agents["start"]>>;
      try {
        task = await agents.start(agent, args.task, ctx);
      } catch (error) {
        // A spawn whose run was refused (a hook's cancel) leaves no idle agent behind.
        agents.forget(agent.key);
        throw error;
      }
      return awaitTask(agents, task, args.timeout_seconds, ctx);
    },
  });

  const send = defineTool({
    name: "agent_send",
    description:
      "Send a follow-up message to a live subagent (by agent_key or label); it continues its conversation. Waits like agent_spawn; timeout_seconds 0 runs it in the background.",
    inputSchema: z
      .object({
        agent_key: z.string().min(1).optional().describe("The key agent_spawn returned"),
        label: z.string().min(1).optional().describe("Or the label given at spawn"),
        message: z.string().min(1),
        timeout_seconds: timeoutSeconds,
      })
      .refine((args) => (args.agent_key === undefined) !== (args.label === undefined), {
        message: "give exactly one of agent_key or label",
      }),
    annotations: { starts_runs: true },
    execute: async (args, ctx) => {
      inForeground(args.timeout_seconds, ctx);
      const which = (args.agent_key ?? args.label) as string;
      const agent = agents.find(which);
      if (!agent) {
        const live = agents.agents().map((a) => a.key + (a.label ? ` (${a.label})` : ""));
        throw new ToolFailure("NotFound", `no live subagent "${which}". Live: ${live.join(", ") || "none"}`);
      }
      const task = await agents.start(agent, args.message, ctx);
      return awaitTask(agents, task, args.timeout_seconds, ctx);
    },
  });

  const list = defineTool({
    name: "agent_list",
    description:
      "List the live subagents: key, label, which subagent, whether it is working, and how many tasks it ran.",
    inputSchema: z.object({}),
    annotations: { read_only: true },
    execute: async () => {
      const rows = agents.agents().map((agent) => ({
        agent_key: agent.key,
        ...(agent.label ? { label: agent.label } : {}),
        agent_id: agent.definition.name,
        status: agent.current?.status === "running" ? "working" : "idle",
        ...(agent.current ? { last_task_id: agent.current.id } : {}),
        tasks: agent.runs,
      }));
      return { content: JSON.stringify(rows, null, 2), details: rows };
    },
  });

  return [spawn, send, list];
}

/**
 * A run that records its steps (`childRuns`) cannot have a child in the background: the child's steps
 * must take their places among the parent's, the same on every execution.
 */
function inForeground(timeoutSeconds: number, ctx: ToolCallEnv): void {
  if (ctx.childRuns && timeoutSeconds === 0) {
    throw new ToolFailure(
      "InvalidInput",
      "this run is durable, so a subagent cannot run in the background: give timeout_seconds above 0 (the call then waits for the subagent's answer, however long it takes)",
    );
  }
}
