import { type AnyTool, defineTool } from "@bridle/core";
import { z } from "zod";

export const planStepSchema = z.object({
  step: z.string().min(1).max(300).describe("One short step"),
  status: z.enum(["pending", "in_progress", "completed"]).describe("At most one step is in_progress"),
});

export const updatePlanSchema = z.object({
  explanation: z.string().max(2_000).optional().describe("Why the plan is what it is, or what changed in it"),
  plan: z
    .array(planStepSchema)
    .min(1)
    .max(50)
    .describe("The whole task list, in order; each call replaces the previous one"),
});

export type PlanStep = z.output<typeof planStepSchema>;

export interface PlanDetails {
  readonly plan: readonly PlanStep[];
  readonly explanation?: string;
}

/**
 * `update_plan` in Codex's shape: the model's visible task list. The plan is the call's arguments and
 * its result's details, so it is on the run's event stream and in the transcript; nothing else is kept.
 * An app with a richer plan tool (a coding overlay's) passes that one to `profileTools` instead.
 */
export function createPlanTool(): AnyTool {
  return defineTool({
    name: "update_plan",
    description:
      "Show the user your task list and its progress (visible, not hidden reasoning). Use it for multi-step work and update it as steps complete; each call replaces the whole list.",
    inputSchema: updatePlanSchema,
    annotations: { read_only: true, idempotent: true },
    async execute(args) {
      const active = args.plan.filter((step) => step.status === "in_progress").length;
      if (active > 1) {
        return {
          content: `${active} steps are in_progress; at most one may be. Send the plan again.`,
          isError: true,
        };
      }
      const done = args.plan.filter((step) => step.status === "completed").length;
      const details: PlanDetails = {
        plan: args.plan,
        ...(args.explanation === undefined ? {} : { explanation: args.explanation }),
      };
      return { content: `Plan updated: ${done} of ${args.plan.length} steps completed.`, details };
    },
  });
}
