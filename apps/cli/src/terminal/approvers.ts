import type { ApprovalDecision, ApprovalRequest, Approver } from "@bridle/core";
import { displayText, oneLine } from "./display-text.js";
import { summarizeArguments } from "./render.js";

/** Asks a question whose answer is one of `keys`, taken as soon as it is typed. */
export type OneKeyAsk = (question: string, keys: readonly string[], signal: AbortSignal) => Promise<string>;

/** --yes: every call that needs approval runs. */
export const approveEverything: Approver = {
  decide: async () => ({ approved: true }),
};

/**
 * No terminal and no --yes: nobody can answer, so the call is denied and the script never hangs. A
 * request to leave the sandbox is told what it can do instead: the model, not the user, reads it.
 */
export const denyWithoutTerminal: Approver = {
  decide: async (request) => ({
    approved: false,
    reason: request.scope?.escalation
      ? "running a command outside the sandbox needs a person's approval and nobody can answer here (no terminal, no --yes); run it inside the sandbox (leave out sandbox_permissions), or finish and say what must run outside it and why"
      : "no terminal to ask for approval; rerun with --yes to approve such calls",
  }),
};

/**
 * Asks on the terminal. `ask` shows a question and resolves with the answer (the interactive session
 * supplies its own line reader so prompts and approvals share one input). "a" approves, for the rest of
 * the session, what the call's scope names (`ApprovalRequest.scope`: for bash the one command's rule,
 * `npm test`), or the whole tool when the tool names no narrower scope; where the scope offers no
 * "always" (a shell, an interpreter, a compound line, a run outside the sandbox) it is not offered.
 */
export class TerminalApprover implements Approver {
  readonly #ask: (question: string, signal: AbortSignal) => Promise<string>;
  readonly #choose: OneKeyAsk | undefined;
  /** Tool names, or a tool name and its scope's key joined by a NUL. */
  readonly #alwaysAllowed = new Set<string>();

  /** `choose`, when given, asks the approval itself so that one key (y, n, a) answers without Enter. */
  constructor(ask: (question: string, signal: AbortSignal) => Promise<string>, choose?: OneKeyAsk) {
    this.#ask = ask;
    this.#choose = choose;
  }

  /** Asks the same person on the same input (an MCP server's elicitation, say). */
  question(text: string, signal: AbortSignal): Promise<string> {
    return this.#ask(text, signal);
  }

  async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const name = request.toolCall.name;
    const scope = request.scope;
    const remembered = alwaysKey(request);
    if (remembered !== undefined && this.#alwaysAllowed.has(remembered)) return { approved: true };
    const label = scope ? scope.always?.label : name;
    const escalation = scope?.escalation
      ? `Run OUTSIDE the sandbox (reason given: "${displayText(scope.escalation.justification, 200)}"): `
      : "Allow ";
    const choices =
      remembered !== undefined && label !== undefined
        ? `[y]es / [n]o / [a]lways for ${displayText(label, 80)}`
        : `[y]es / [n]o${scope?.note ? ` (${displayText(scope.note, 120)})` : ""}`;
    const asked = request.reason === undefined ? "" : `A hook asks: ${displayText(request.reason, 200)}. `;
    // The tool's reason (the command policy's verdict) on its own short line, so the keys stay on the last.
    const why = scope?.why ? `Why it asks: ${oneLine(scope.why, 160)}\n` : "";
    const question = `${why}${asked}${escalation}${displayText(name, 80)} ${summarizeArguments(request.toolCall.arguments)}? ${choices}: `;
    const keys = remembered !== undefined && label !== undefined ? ["y", "n", "a"] : ["y", "n"];
    const answer = (await (this.#choose ? this.#choose(question, keys, signal) : this.#ask(question, signal)))
      .trim()
      .toLowerCase();
    if (answer === "a" || answer === "always") {
      // Where "always" is not offered, "a" approves this call only: what was asked, nothing wider.
      if (remembered !== undefined) this.#alwaysAllowed.add(remembered);
      return { approved: true };
    }
    if (answer === "y" || answer === "yes") return { approved: true };
    return { approved: false, reason: "the user refused" };
  }
}

/**
 * What an "always" answer to this call covers, as a key to remember: the tool and its scope's key, or the
 * whole tool when the tool names no narrower scope; undefined when the scope offers no "always".
 */
export function alwaysKey(request: ApprovalRequest): string | undefined {
  // A hook asked for a person's answer to this one call: no remembered answer stands in for it.
  if (request.reason !== undefined) return undefined;
  const name = request.toolCall.name;
  const scope = request.scope;
  return scope ? (scope.always ? `${name}\u0000${scope.always.key}` : undefined) : name;
}

/**
 * --yes with a person at the terminal (the interactive session): every tool call is approved unasked, as
 * --yes says, but what only a person can answer (an MCP server's form) is still asked of them.
 */
export class YesAtTerminal extends TerminalApprover {
  override async decide(): Promise<ApprovalDecision> {
    return { approved: true };
  }
}
