import { z } from "zod";

export const limitsSchema = z
  .object({
    /** Model requests one run may make. */
    maxModelRequests: z.number().int().positive().default(50),
    /** Tool calls one run may make; a batch that would pass it is refused before any call in it runs. */
    maxToolCalls: z.number().int().positive().default(250),
    /** Fractions of a limit at which the model is told, once each, how much is left. */
    warnAt: z.array(z.number().gt(0).lt(1)).default([0.8]),
    /** Model-correctable failures tolerated per tool name, unless the tool sets its own budget. */
    toolRetryBudget: z.number().int().nonnegative().default(5),
    /** Corrective model turns allowed after missing or invalid structured output. */
    outputRetries: z.number().int().nonnegative().default(2),
    /** Default per-call timeout in ms for tools that set none (0: none). */
    toolTimeoutMs: z.number().int().nonnegative().default(0),
  })
  .strict();

export type HarnessLimits = z.output<typeof limitsSchema>;
export type HarnessLimitsInput = z.input<typeof limitsSchema>;

/** The thresholds (counts) crossed by `used` of `max`, from the configured fractions. */
export function crossedThresholds(used: number, max: number, fractions: readonly number[]): number[] {
  const crossed: number[] = [];
  for (const fraction of fractions) {
    const at = Math.max(1, Math.floor(max * fraction));
    if (used >= at) crossed.push(at);
  }
  return crossed;
}
