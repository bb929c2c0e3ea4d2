// Approvals asked of the editor's user through session/request_permission: allow once, always (what the
// call's scope names: for bash the one command's rule, else the whole tool; approvers.ts keeps that rule),
// or reject. "Always" lasts for the ACP session, across mode switches.
import type { AgentContext, PermissionOption, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ApprovalDecision, ApprovalRequest, Approver } from "@bridle/core";
import { alwaysKey } from "../terminal/approvers.js";
import { oneLine } from "../terminal/display-text.js";
import { parsedArguments, toolKind, toolLocations, toolPaths, toolTitle } from "./tool-view.js";

const ALLOW = "allow";
const ALWAYS = "always";
const REJECT = "reject";

export class AcpApprover implements Approver {
  readonly #client: AgentContext;
  readonly #sessionId: string;
  readonly #cwd: string;
  readonly #always = new Set<string>();

  constructor(client: AgentContext, sessionId: string, cwd: string) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#cwd = cwd;
  }

  async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const remembered = alwaysKey(request);
    if (remembered !== undefined && this.#always.has(remembered)) return { approved: true };
    const { toolCall, scope } = request;
    const args = parsedArguments(toolCall.arguments);
    const paths = toolPaths(toolCall.name, args, this.#cwd);
    const title = toolTitle(toolCall.name, args, paths);
    const options: PermissionOption[] = [{ optionId: ALLOW, name: "Allow once", kind: "allow_once" }];
    if (remembered !== undefined) {
      const label = oneLine(scope?.always?.label ?? toolCall.name, 80);
      options.push({ optionId: ALWAYS, name: `Always allow ${label}`, kind: "allow_always" });
    }
    options.push({ optionId: REJECT, name: "Reject", kind: "reject_once" });
    const escalation = scope?.escalation
      ? `Run outside the sandbox (reason given: ${oneLine(scope.escalation.justification, 200)}): `
      : "";
    // A hook's reason for asking (alwaysKey offers no "always" for such a call).
    const asked = request.reason === undefined ? "" : `A hook asks: ${oneLine(request.reason, 200)}. `;
    // The tool's reason goes in the call's content, which editors draw under the title in the permission
    // card: nothing is there yet (a call's result replaces it when it ends).
    const why = scope?.why
      ? [
          {
            type: "content" as const,
            content: { type: "text" as const, text: `Why it asks: ${oneLine(scope.why, 300)}` },
          },
        ]
      : [];
    let response: RequestPermissionResponse;
    try {
      response = await this.#client.request(
        "session/request_permission",
        {
          sessionId: this.#sessionId,
          toolCall: {
            toolCallId: toolCall.id,
            title: `${asked}${escalation}${title}`,
            kind: toolKind(toolCall.name),
            status: "pending",
            locations: toolLocations(paths),
            rawInput: args,
            ...(why.length > 0 ? { content: why } : {}),
          },
          options,
        },
        // A cancelled turn stops waiting at once; the editor is told ($/cancel_request) to close its prompt.
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    } catch (error) {
      if (signal.aborted) return { approved: false, reason: "the turn was cancelled" };
      return {
        approved: false,
        reason: `the editor did not answer: ${oneLine((error as Error).message, 200)}`,
      };
    }
    const { outcome } = response;
    if (outcome.outcome !== "selected") return { approved: false, reason: "the turn was cancelled" };
    if (outcome.optionId === ALWAYS && remembered !== undefined) {
      this.#always.add(remembered);
      return { approved: true };
    }
    if (outcome.optionId === ALLOW) return { approved: true };
    return {
      approved: false,
      reason: scope?.escalation
        ? "the user refused to run this outside the sandbox; run it inside (leave out sandbox_permissions), or finish and say what must run outside it and why"
        : "the user refused",
    };
  }
}
