import { type AnyTool, defineTool } from "@bridle/core";
import { z } from "zod";
import { FACT, type NotesFact, type PlanFact } from "../facts.js";
import type { RunRegistry } from "../run-state.js";

const planSchema = z.object({
  explanation: z.string().max(2_000).optional().describe("what changed, or why"),
  plan: z
    .array(
      z.object({
        step: z.string().min(1).max(300),
        status: z.enum(["pending", "in_progress", "completed"]).describe("at most one in_progress"),
      }),
    )
    .min(1)
    .max(30)
    .describe("the whole list; replaces the previous one"),
  scope: z
    .array(z.string().min(1).max(300))
    .max(50)
    .optional()
    .describe("files or globs the task covers; changes outside are flagged"),
});

export function createUpdatePlanTool(runs: RunRegistry): AnyTool {
  return defineTool({
    name: "update_plan",
    description:
      "Show the user your task list and progress, for multi-step or risky work; update it as steps complete.",
    inputSchema: planSchema,
    annotations: { read_only: true },
    execute: async (args, ctx) => {
      const state = await runs.get(ctx.runId, ctx.workspace.root).state;
      if (args.plan.filter((item) => item.status === "in_progress").length > 1) {
        return { content: "at most one step may be in_progress", isError: true };
      }
      if (args.scope) state.scope = args.scope;
      const fact: PlanFact = {
        items: args.plan,
        ...(args.scope ? { scope: args.scope } : {}),
        ...(args.explanation ? { explanation: args.explanation } : {}),
      };
      state.addFact(ctx.toolCallId, { kind: FACT.plan, data: fact });
      const done = args.plan.filter((item) => item.status === "completed").length;
      return { content: `plan updated: ${done} of ${args.plan.length} steps completed`, details: fact };
    },
  });
}

const notesSchema = z.object({
  assumptions: z.array(z.string().min(1).max(500)).max(20).optional().describe("Assumptions you made"),
  risks: z.array(z.string().min(1).max(500)).max(20).optional().describe("and rollback notes"),
  follow_ups: z.array(z.string().min(1).max(500)).max(20).optional().describe("work left for later"),
});

export function createHandoffNotesTool(runs: RunRegistry): AnyTool {
  return defineTool({
    name: "handoff_notes",
    description:
      "Add your assumptions, risks and follow-ups to the handoff the user gets at the end (files, commands and checks are collected for you).",
    inputSchema: notesSchema,
    annotations: { read_only: true },
    execute: async (args, ctx) => {
      const state = await runs.get(ctx.runId, ctx.workspace.root).state;
      const fact: NotesFact = {
        assumptions: args.assumptions ?? [],
        risks: args.risks ?? [],
        followUps: args.follow_ups ?? [],
      };
      state.addFact(ctx.toolCallId, { kind: FACT.notes, data: fact });
      const count = fact.assumptions.length + fact.risks.length + fact.followUps.length;
      return { content: `${count} notes added to the handoff`, details: fact };
    },
  });
}
