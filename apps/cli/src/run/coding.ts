// The coding overlay in the CLI: on by default (--no-coding for a bare tool loop), the plan shown as it
// changes, and at the end of a run the evidence handoff as a short summary (and --evidence FILE as JSON).
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Evidence, PlanFact } from "@bridle/coding";
import { DEFAULT_CODING, type CodingChoice as OverlayChoice } from "@bridle/coding-agent";
import type { RunEvent } from "@bridle/core";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import { visible } from "../terminal/display-text.js";

/** What the coding flags chose: the recipe's overlay choice, and where the evidence goes. */
export interface CodingChoice extends OverlayChoice {
  /** Where the evidence JSON goes (absolute), when asked. */
  readonly evidence?: string;
}

export { DEFAULT_CODING };

/** The coding flags apart from the settings flags (the config loader knows nothing of them). */
export function splitCodingFlags(flags: CliFlags): { coding: CodingChoice; rest: CliFlags } {
  const { noCoding, evidence, repairAttempts, ...rest } = flags;
  let attempts = DEFAULT_CODING.repairAttempts;
  if (repairAttempts !== undefined) {
    if (!/^\d{1,2}$/.test(repairAttempts) || Number(repairAttempts) > 20) {
      throw new CliError(`--repair-attempts must be a whole number from 0 to 20, not "${repairAttempts}"`, 2);
    }
    attempts = Number(repairAttempts);
  }
  if (noCoding && (evidence !== undefined || repairAttempts !== undefined)) {
    throw new CliError("--evidence and --repair-attempts need the coding overlay (drop --no-coding)", 2);
  }
  return {
    coding: {
      enabled: !noCoding,
      repairAttempts: attempts,
      ...(evidence !== undefined ? { evidence: resolve(evidence) } : {}),
    },
    rest,
  };
}

const MARK = { completed: "[x]", in_progress: "[>]", pending: "[ ]" } as const;

/** The plan as a few stderr lines. */
export function formatPlan(plan: PlanFact): string {
  const lines = ["plan:"];
  if (plan.explanation) lines.push(`  ${plan.explanation.split("\n")[0]}`);
  for (const item of plan.items) lines.push(`  ${MARK[item.status]} ${item.step}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Watches one run's events: shows each plan update on stderr, and at the end prints the handoff summary
 * and writes the evidence JSON. The handoff is built from the events alone.
 */
export class HandoffReporter {
  readonly #choice: CodingChoice;
  readonly #stderr: { write(text: string): void };
  readonly #events: RunEvent[] = [];

  constructor(choice: CodingChoice, stderr: { write(text: string): void }) {
    this.#choice = choice;
    this.#stderr = stderr;
  }

  observe(event: RunEvent, options: { showPlan: boolean }): void {
    if (!this.#choice.enabled) return;
    // Deltas and progress are not evidence: they are left out, so a long run's list stays small.
    if (event.type === "text_delta" || event.type === "reasoning_delta" || event.type === "tool_progress")
      return;
    this.#events.push(event);
    if (options.showPlan && event.type === "fact" && event.kind === "coding.plan") {
      // The plan is the model's words, the handoff names files and checks' output: escaped as they are shown.
      this.#stderr.write(visible(formatPlan(event.data as PlanFact)));
    }
  }

  /**
   * Prints the summary (unless quiet) and writes the JSON; returns the evidence and the exit code the
   * handoff asks for (1 when it says FAILED), if the overlay ran.
   */
  async finish(options: { quiet: boolean }): Promise<{ evidence: Evidence; exitCode: 0 | 1 } | undefined> {
    if (!this.#choice.enabled) return undefined;
    const { buildEvidence, formatHandoff, handoffExitCode, handoffOutcome } = await import("@bridle/coding");
    const evidence = buildEvidence(this.#events);
    const outcome = handoffOutcome(this.#events);
    if (!options.quiet && !(outcome.status === "failed" && didNothing(evidence)))
      this.#stderr.write(`${visible(formatHandoff(evidence, outcome))}\n`);
    if (this.#choice.evidence) {
      try {
        await writeFile(this.#choice.evidence, `${JSON.stringify(evidence, null, 2)}\n`);
      } catch (error) {
        throw new CliError(
          `cannot write the evidence to ${this.#choice.evidence}: ${(error as Error).message}`,
        );
      }
    }
    return { evidence, exitCode: handoffExitCode(outcome) };
  }
}

/**
 * A run that failed before it changed a file, ran a command or a check (a provider that would not answer)
 * has nothing to hand off: its `stopped:` line already says why, and a summary would repeat it twice.
 */
function didNothing(evidence: Evidence): boolean {
  return (
    evidence.filesChanged.length === 0 &&
    evidence.commands.length === 0 &&
    evidence.checks.every((check) => check.status === "unavailable" || check.status === "skipped")
  );
}
