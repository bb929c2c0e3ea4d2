import { type AnyTool, defineTool, ToolFailure } from "@bridle/core";
import { z } from "zod";
import type { Agents } from "../agents.js";
import type { AgentTask } from "../task.js";
import { taskOutput, taskReport } from "./report.js";

export function taskTools(agents: Agents): AnyTool[] {
  const lookup = (id: string): AgentTask => {
    const task = agents.task(id);
    if (!task) {
      const known = agents
        .tasks()
        .map((t) => t.id)
        .slice(-20);
      throw new ToolFailure("NotFound", `no task "${id}". Known: ${known.join(", ") || "none"}`);
    }
    return task;
  };

  const output = defineTool({
    name: "task_output",
    description:
      "Get a background task's result. With block (the default) it waits up to timeout milliseconds for the task to finish; otherwise it answers at once with the current status.",
    inputSchema: z.object({
      task_id: z.string().min(1),
      block: z.boolean().default(true).describe("Wait for the task to finish (default true)"),
      timeout: z
        .number()
        .int()
        .min(0)
        .max(600_000)
        .default(30_000)
        .describe("Milliseconds to wait when blocking (default 30000, at most 600000)"),
    }),
    annotations: { read_only: true },
    execute: async (args, ctx) => {
      const task = lookup(args.task_id);
      if (args.block) await task.wait(args.timeout, ctx.signal);
      if (task.status === "running") {
        return taskOutput(task, args.block ? `not finished after ${args.timeout} ms` : "still running");
      }
      await agents.report(task, ctx);
      return taskOutput(task);
    },
  });

  const cancel = defineTool({
    name: "task_cancel",
    description: "Cancel a running task (the subagent stops). A task that already ended is left as it is.",
    inputSchema: z.object({ task_id: z.string().min(1) }),
    execute: async (args, ctx) => {
      const task = lookup(args.task_id);
      if (!task.cancel("cancelled by task_cancel"))
        return taskOutput(task, "already ended; nothing to cancel");
      await task.done;
      await agents.report(task, ctx);
      return taskOutput(task);
    },
  });

  const list = defineTool({
    name: "task_list",
    description: "List tasks, optionally only those with one status.",
    inputSchema: z.object({
      status: z.enum(["running", "completed", "failed", "cancelled", "all"]).default("all"),
    }),
    annotations: { read_only: true },
    execute: async (args) => {
      const rows = agents.tasks(args.status).map((task) => {
        const { result: _, ...rest } = taskReport(task);
        return { ...rest, task: task.prompt.length > 120 ? `${task.prompt.slice(0, 120)}…` : task.prompt };
      });
      return { content: JSON.stringify(rows, null, 2), details: rows };
    },
  });

  return [output, cancel, list];
}
