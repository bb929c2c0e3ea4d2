// How the model leaves plan mode: it presents the plan (Claude Code's ExitPlanMode, `exit_plan_mode` in the
// other profiles), the person accepts it, and the session switches to the mode it was in before planning.
// Not accepted, the model keeps planning with the person's words as the result.
import { type AnyTool, defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import { z } from "zod";
import type { ModeSwitch } from "./session-mode.js";
import type { ProfileChoice } from "./settings.js";
import type { UserQuestions } from "./user-questions.js";

const schema = z.object({ plan: z.string().min(1).max(20_000).describe("markdown") });

/** What the tool's details say: whether the plan was accepted and the mode the session is in after it. */
export interface PlanDecision {
  readonly accepted: boolean;
  readonly mode: string;
  readonly feedback?: string;
}

export function exitPlanToolName(profile: ProfileChoice): string {
  return profile === "anthropic" ? "ExitPlanMode" : "exit_plan_mode";
}

export function createExitPlanTool(
  profile: ProfileChoice,
  modes: ModeSwitch,
  questions: UserQuestions | undefined,
): AnyTool {
  return defineTool({
    name: exitPlanToolName(profile),
    description: "Plan mode: submit your finished plan for approval.",
    inputSchema: schema,
    // It changes no file: plan mode offers it, and the coding overlay need not rescan after it.
    annotations: { read_only: true },
    sequential: true,
    async execute(args, env): Promise<ToolOutput<PlanDecision>> {
      if (modes.mode !== "plan")
        return {
          content: `Not in plan mode (the mode is ${modes.mode}): carry on with the task.`,
          details: { accepted: true, mode: modes.mode },
        };
      if (!questions)
        throw new ToolFailure(
          "Denied",
          "nobody can accept a plan here (no terminal or client to ask): give the plan as your final answer and stop",
        );
      const working = modes.working;
      const answers = await questions.ask(
        [
          {
            header: "Plan",
            question: `Accept this plan and switch to ${working} mode?`,
            detail: args.plan,
            multiSelect: false,
            options: [
              { label: "Yes", description: `switch to ${working} mode and carry it out` },
              { label: "No", description: "keep planning (type what to change instead, if you like)" },
            ],
          },
        ],
        env.signal,
      );
      const answer = answers?.[0];
      if (answer?.other === undefined && answer?.selected[0] === "Yes") {
        modes.set(working);
        return {
          content: `The user accepted the plan. The session is now in ${working} mode: carry out the plan.`,
          details: { accepted: true, mode: working },
        };
      }
      const feedback = answer?.other?.trim();
      return {
        content: feedback
          ? `The user did not accept the plan and said: ${feedback}\nStay in plan mode: revise the plan and present it again.`
          : "The user did not accept the plan. Stay in plan mode: ask what to change, or revise the plan and present it again.",
        details: { accepted: false, mode: "plan", ...(feedback ? { feedback } : {}) },
      };
    },
  });
}
