// Calling a task's check.mjs: its default export judges the final tree, the events and the transcript.
import { pathToFileURL } from "node:url";
import type { Evidence } from "@bridle/coding";
import type { Message, RunEvent } from "@bridle/core";
import { z } from "zod";

/** What `check` receives as `result`: how the run ended and what it cost, plus the evidence handoff. */
export interface CheckRunResult {
  readonly taskId: string;
  readonly script: string;
  readonly format: string;
  readonly provider: string;
  readonly model: string;
  readonly stopReason: string;
  readonly finalText: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** The coding overlay's handoff, rebuilt from the events (files changed, commands, checks, flags). */
  readonly evidence: Evidence;
  /** The folder beside the workspace that held the task's outside/ files (absolute). */
  readonly outsideDir: string;
  /** Every tool call of the run with its result, in order. */
  readonly toolCalls: readonly CheckToolCall[];
}

export interface CheckToolCall {
  readonly name: string;
  readonly arguments: string;
  readonly isError: boolean;
  readonly errorKind?: string;
  /** The text the model was given. */
  readonly output: string;
}

export interface CheckInput {
  /** The workspace as the run left it (absolute). */
  readonly dir: string;
  /** The run's events (without text deltas and tool progress). */
  readonly events: readonly RunEvent[];
  readonly transcript: readonly Message[];
  readonly result: CheckRunResult;
}

export const CheckVerdict = z.object({
  pass: z.boolean(),
  score: z.number().min(0).max(1).optional(),
  notes: z.array(z.string()).default([]),
});
export type CheckVerdict = z.infer<typeof CheckVerdict>;

/** Runs a check.mjs; a check that throws or returns a malformed verdict is a failed check saying why. */
export async function runCheck(checkPath: string, input: CheckInput): Promise<CheckVerdict> {
  try {
    const module = (await import(pathToFileURL(checkPath).href)) as { default?: unknown };
    if (typeof module.default !== "function") {
      return { pass: false, notes: [`${checkPath}: the default export is not a function`] };
    }
    const verdict = CheckVerdict.safeParse(await (module.default as (input: CheckInput) => unknown)(input));
    if (!verdict.success) {
      return {
        pass: false,
        notes: [`check returned ${verdict.error.issues[0]?.message ?? "an invalid verdict"}`],
      };
    }
    return verdict.data;
  } catch (error) {
    return { pass: false, notes: [`check threw: ${(error as Error).message}`] };
  }
}
