import type { PolicyResult } from "@bridle/shell-policy";

/**
 * How far shell commands may reach without a person:
 * - "read-only": only commands the policy proves read-only run (in the sandbox where it runs); the rest is refused.
 * - "workspace" (the default): where the sandbox runs it is the boundary and every command runs in it unasked,
 *   but one that can print a secret from git's object store (which the sandbox does not mask); where none
 *   runs the policy is, strictly: what it proves read-only and inside runs, the rest asks.
 * - "ask": every command not proven read-only asks, sandbox or not.
 * - "full-access": no sandbox, no policy, no asks.
 */
export type PermissionMode = "read-only" | "workspace" | "ask" | "full-access";

export const PERMISSION_MODES: readonly PermissionMode[] = ["read-only", "workspace", "ask", "full-access"];

/** A call's request to leave the sandbox, as Codex names it. */
export type SandboxPermissions = "use_default" | "require_escalated";

/**
 * What happens to one command: it runs, it asks a person first (saying why, for the person and, if they
 * refuse, the model), or it is refused with a reason the model can act on.
 */
export type CommandOutcome =
  | { readonly kind: "run" }
  | { readonly kind: "ask"; readonly reason: string }
  | { readonly kind: "refuse"; readonly code: "Denied" | "InvalidInput"; readonly reason: string };

export interface OutcomeInput {
  readonly mode: PermissionMode;
  /** The runner is the bubblewrap sandbox. */
  readonly sandboxed: boolean;
  /** The policy's verdict (judged read-only unless the sandbox is the boundary); undefined without a policy. */
  readonly verdict: PolicyResult | undefined;
  readonly escalated: boolean;
  readonly justification: string | undefined;
  /** A deny or ask rule the user wrote matches one of its commands: it holds in every mode, sandbox or not. */
  readonly userRule?: { readonly decision: "deny" | "ask"; readonly label: string } | undefined;
  /** What a refusal calls the judged text (default "this command"; "the script it runs" for a script's body). */
  readonly subject?: string | undefined;
}

const RUN: CommandOutcome = { kind: "run" };

function ask(reason: string): CommandOutcome {
  return { kind: "ask", reason };
}

function refuse(reason: string, code: "Denied" | "InvalidInput" = "Denied"): CommandOutcome {
  return { kind: "refuse", code, reason };
}

function reasons(verdict: PolicyResult): string {
  return verdict.reasons.slice(0, 3).join("; ");
}

/** The one table of what a mode does with a command (the README's table, and the tests', are this). */
export function commandOutcome(input: OutcomeInput): CommandOutcome {
  const { mode, sandboxed, verdict, escalated } = input;
  const subject = input.subject ?? "this command";
  // Why a person is asked: the policy's own words where it judged, else what made the mode ask.
  const judged = (): string => {
    const why = verdict ? reasons(verdict) : "no command policy judges commands here";
    return input.subject ? `${input.subject}: ${why}` : why;
  };
  if (escalated && !input.justification?.trim())
    return refuse(
      'sandbox_permissions "require_escalated" needs a justification: say in one sentence why the command must run outside the sandbox',
      "InvalidInput",
    );
  const rule = input.userRule;
  if (rule?.decision === "deny")
    return refuse(`your deny rule "${rule.label}" matches ${subject}; do it another way or ask the user`);
  if (mode === "full-access") return RUN;
  if (mode === "read-only") {
    if (escalated)
      return refuse(
        "the session is read-only: nothing runs outside the sandbox; run a read-only command without sandbox_permissions",
      );
    if (verdict?.decision === "allow") return RUN;
    return refuse(
      `the session is read-only: only commands the policy proves read-only run${verdict ? ` (${reasons(verdict)})` : ""}; read files with read-only commands or the file tools instead`,
    );
  }
  // Leaving the sandbox, or having none: the policy is the boundary, and a person decides the rest.
  if (escalated || !sandboxed) {
    if (verdict?.decision === "deny")
      return refuse(`the command policy denies ${subject}: ${reasons(verdict)}`);
    if (escalated) return ask(`${subject} asks to run outside the sandbox`);
    return verdict?.decision === "allow" ? RUN : ask(judged());
  }
  // Inside the sandbox: what it withholds fails in the command itself, so the policy only sorts asks.
  if (rule?.decision === "ask") return ask(`your ask rule "${rule.label}" matches ${subject}`);
  // The sandbox masks secret files, not git's object store: a command that can print a secret from
  // history asks, as a user's ask rule does.
  if (verdict?.reads_secret_objects) return ask(judged());
  if (mode === "workspace") return RUN;
  return verdict?.decision === "allow" ? RUN : ask(judged());
}

/** The one line a front door says at start: the mode, and what bounds the commands. */
export function describePermissionMode(mode: PermissionMode, sandboxed: boolean): string {
  switch (mode) {
    case "full-access":
      return "permission mode full-access: no sandbox and no approvals; commands and file tools can change anything this user can";
    case "read-only":
      return `permission mode read-only: no file writes, only commands the policy proves read-only${sandboxed ? ", in the sandbox" : " (no sandbox)"}`;
    case "ask":
      return `permission mode ask: every write and every command not proven read-only asks${sandboxed ? "; commands run in the sandbox" : "; no sandbox"}`;
    case "workspace":
      return sandboxed
        ? "permission mode workspace: the sandbox is the boundary; commands run in it unasked, running outside it asks"
        : "permission mode workspace, no sandbox: the command policy is the boundary; what it cannot prove read-only asks";
  }
}

const STRICTNESS = { run: 0, ask: 1, refuse: 2 } as const;

/** The strictest of several outcomes (a command and the scripts it runs): a refusal, else an ask, else run. */
export function strictest(outcomes: readonly CommandOutcome[]): CommandOutcome {
  let found: CommandOutcome = RUN;
  for (const outcome of outcomes) if (STRICTNESS[outcome.kind] > STRICTNESS[found.kind]) found = outcome;
  return found;
}
