import { commandWrites, type PolicyResult } from "@bridle/shell-policy";
import type { CommandStep } from "./facts.js";

// Bounds on what one command adds to the record: a step past them is summed up as one that may write.
const MAX_STEPS = 50;
const MAX_WORDS = 8;
const MAX_WORD = 200;

/**
 * A shell command's sub-commands in the order the command policy found them, each with whether it may
 * have written (the policy's own proof, judged one sub-command at a time). This is what tells, inside
 * one call, a test run before an edit from one after it. Undefined when the tool gave no verdict.
 */
export function commandSteps(policy: unknown): CommandStep[] | undefined {
  if (!isVerdict(policy)) return undefined;
  const steps: CommandStep[] = policy.subcommands.slice(0, MAX_STEPS).map((sub) => ({
    argv: sub.argv.slice(0, MAX_WORDS).map((word) => word.slice(0, MAX_WORD)),
    // Judged alone, with its own decision: a test that asked for approval proves nothing of the reads after it.
    writes: commandWrites({ ...policy, decision: sub.decision, subcommands: [sub] }),
  }));
  if (policy.subcommands.length > MAX_STEPS) steps.push({ argv: ["…"], writes: "possible" });
  return steps;
}

function isVerdict(value: unknown): value is PolicyResult {
  if (typeof value !== "object" || value === null) return false;
  const verdict = value as Partial<PolicyResult>;
  return (
    typeof verdict.command === "string" &&
    typeof verdict.decision === "string" &&
    Array.isArray(verdict.subcommands) &&
    verdict.subcommands.every((sub) => Array.isArray(sub?.argv))
  );
}
