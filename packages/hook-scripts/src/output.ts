import { z } from "zod";
import type { CommandOutcome } from "./run-command.js";

/** The JSON a hook may print on stdout (exit 0), as Claude Code reads it; other fields are kept. */
const hookJsonOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  decision: z.string().optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});

export type HookJsonOutput = z.infer<typeof hookJsonOutputSchema>;

/** One command's result read the way Claude Code reads it. */
export type HookVerdict =
  /** Exit 0. `json` when stdout was a JSON object; `text` is stdout otherwise. */
  | { readonly kind: "ok"; readonly json?: HookJsonOutput; readonly text: string }
  /** Exit 2: the action is blocked and stderr is the reason. */
  | { readonly kind: "block"; readonly reason: string }
  /** Any other exit, a timeout, or a shell that did not start. */
  | { readonly kind: "error"; readonly message: string };

/** Feedback given to the model is cut to this many characters. */
export const FEEDBACK_LIMIT = 4_000;

export function readVerdict(outcome: CommandOutcome, timeoutSeconds: number): HookVerdict {
  if (outcome.spawnError) return { kind: "error", message: `could not start: ${outcome.spawnError}` };
  if (outcome.timedOut)
    return { kind: "error", message: `timed out after ${timeoutSeconds}s and was killed` };
  if (outcome.exitCode === 2) {
    return { kind: "block", reason: bounded(outcome.stderr.trim()) || "blocked by a hook (exit code 2)" };
  }
  if (outcome.exitCode !== 0) {
    const detail = bounded(outcome.stderr.trim());
    const code = outcome.exitCode === undefined ? "was killed" : `exited with code ${outcome.exitCode}`;
    return { kind: "error", message: detail ? `${code}: ${detail}` : code };
  }
  const trimmed = outcome.stdout.trim();
  // Like Claude Code: stdout that is not a JSON object is plain text, not an error.
  if (!trimmed.startsWith("{")) return { kind: "ok", text: outcome.stdout };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { kind: "ok", text: outcome.stdout };
  }
  const parsed = hookJsonOutputSchema.safeParse(value);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    return {
      kind: "error",
      message: `printed JSON that is not hook output (${problem?.path.join(".") || "value"}: ${problem?.message ?? "invalid"})`,
    };
  }
  return { kind: "ok", json: parsed.data, text: "" };
}

export function bounded(text: string): string {
  return text.length > FEEDBACK_LIMIT ? `${text.slice(0, FEEDBACK_LIMIT)}… [cut]` : text;
}
