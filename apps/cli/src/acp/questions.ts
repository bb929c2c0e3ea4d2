// The agent's questions (the ask-the-user tool, accepting a plan) asked of the editor's user through
// session/request_permission: one request per question, its options as the choices. ACP's permission
// request has no free-text answer and picks one option, so a question that takes several gets one.
import { randomUUID } from "node:crypto";
import type { AgentContext, PermissionOption, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { UserAnswer, UserQuestion, UserQuestions } from "@bridle/coding-agent";
import { oneLine } from "../terminal/display-text.js";

export class AcpQuestions implements UserQuestions {
  readonly #client: AgentContext;
  readonly #sessionId: string;

  constructor(client: AgentContext, sessionId: string) {
    this.#client = client;
    this.#sessionId = sessionId;
  }

  async ask(
    questions: readonly UserQuestion[],
    signal: AbortSignal,
  ): Promise<readonly UserAnswer[] | undefined> {
    const answers: UserAnswer[] = [];
    for (const question of questions) {
      const options: PermissionOption[] = question.options.map((option, i) => ({
        optionId: String(i),
        name: option.description ? `${option.label}: ${oneLine(option.description, 120)}` : option.label,
        // The plan's "No" (the last option of a yes/no) reads as a refusal in the editor.
        kind: question.header === "Plan" && i > 0 ? "reject_once" : "allow_once",
      }));
      let response: RequestPermissionResponse;
      try {
        response = await this.#client.request(
          "session/request_permission",
          {
            sessionId: this.#sessionId,
            toolCall: {
              toolCallId: `question-${randomUUID()}`,
              title: `${oneLine(question.header, 12)}: ${oneLine(question.question, 300)}`,
              kind: "think",
              status: "pending",
              ...(question.detail
                ? { content: [{ type: "content", content: { type: "text", text: question.detail } }] }
                : {}),
            },
            options,
          },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        );
      } catch {
        return undefined;
      }
      const { outcome } = response;
      if (outcome.outcome !== "selected") return undefined;
      const picked = question.options[Number(outcome.optionId)];
      if (!picked) return undefined;
      answers.push({ selected: [picked.label] });
    }
    return answers;
  }
}
