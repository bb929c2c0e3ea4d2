import type { ApprovalDecision, ApprovalRequest, Approver } from "@bridle/core";
import { summarizeArguments } from "./render.js";

/** --yes: every call that needs approval runs. */
export const approveEverything: Approver = {
  decide: async () => ({ approved: true }),
};

/** No terminal and no --yes: nobody can answer, so the call is denied and the script never hangs. */
export const denyWithoutTerminal: Approver = {
  decide: async () => ({
    approved: false,
    reason: "no terminal to ask for approval; rerun with --yes to approve such calls",
  }),
};

/**
 * Asks on the terminal. `ask` shows a question and resolves with the answer (the interactive session
 * supplies its own line reader so prompts and approvals share one input). "a" approves this tool for the
 * rest of the session.
 */
export class TerminalApprover implements Approver {
  readonly #ask: (question: string, signal: AbortSignal) => Promise<string>;
  readonly #alwaysAllowed = new Set<string>();

  constructor(ask: (question: string, signal: AbortSignal) => Promise<string>) {
    this.#ask = ask;
  }

  /** Asks the same person on the same input (an MCP server's elicitation, say). */
  question(text: string, signal: AbortSignal): Promise<string> {
    return this.#ask(text, signal);
  }

  async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const name = request.toolCall.name;
    if (this.#alwaysAllowed.has(name)) return { approved: true };
    const question = `Allow ${name} ${summarizeArguments(request.toolCall.arguments)}? [y]es / [n]o / [a]lways for ${name}: `;
    const answer = (await this.#ask(question, signal)).trim().toLowerCase();
    if (answer === "a" || answer === "always") {
      this.#alwaysAllowed.add(name);
      return { approved: true };
    }
    if (answer === "y" || answer === "yes") return { approved: true };
    return { approved: false, reason: "the user refused" };
  }
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
