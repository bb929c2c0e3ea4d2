// The agent's questions (the ask-the-user tool, accepting a plan) asked of the editor's user. A client that
// renders forms (it advertised `elicitation.form` at initialize) gets one form per question: the options as
// a single or multiple choice, and a free-text field for the person's own answer ("other"). Any other client
// gets session/request_permission, one request per question with its options as the choices: that request
// picks exactly one option and carries no text, so there a question that takes several gets one, and the
// person cannot answer in their own words.
import { randomUUID } from "node:crypto";
import type {
  AgentContext,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  PermissionOption,
  RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import type { UserAnswer, UserQuestion, UserQuestions } from "@bridle/coding-agent";
import { oneLine } from "../terminal/display-text.js";

// A free-text answer is a sentence or a few, not a document.
const MAX_OTHER_CHARS = 2_000;

export class AcpQuestions implements UserQuestions {
  readonly #client: AgentContext;
  readonly #sessionId: string;
  readonly #forms: boolean;

  /** `forms`: the client advertised form elicitation (`clientCapabilities.elicitation.form`). */
  constructor(client: AgentContext, sessionId: string, forms = false) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#forms = forms;
  }

  async ask(
    questions: readonly UserQuestion[],
    signal: AbortSignal,
  ): Promise<readonly UserAnswer[] | undefined> {
    const answers: UserAnswer[] = [];
    for (const question of questions) {
      if (this.#forms) {
        const answer = await this.#askInForm(question, signal);
        if (!answer) return undefined;
        answers.push(answer);
        continue;
      }
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

  /** One question as a form: pick among the options, or type an answer of one's own. */
  async #askInForm(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer | undefined> {
    const choices = question.options.map((option) => ({
      const: option.label,
      title: option.description ? `${option.label}: ${oneLine(option.description, 120)}` : option.label,
    }));
    const choice: ElicitationPropertySchema = question.multiSelect
      ? { type: "array", title: "Choose any", items: { anyOf: choices } }
      : { type: "string", title: "Choose one", oneOf: choices };
    let response: CreateElicitationResponse;
    try {
      response = await this.#client.request(
        "elicitation/create",
        {
          mode: "form",
          sessionId: this.#sessionId,
          message: `${oneLine(question.header, 12)}: ${oneLine(question.question, 300)}${question.detail ? `\n\n${question.detail}` : ""}`,
          requestedSchema: {
            type: "object",
            properties: {
              choice,
              other: {
                type: "string",
                title: "Or answer in your own words",
                description: "Used instead of the choice when given",
                maxLength: MAX_OTHER_CHARS,
              },
            },
          },
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    } catch {
      return undefined;
    }
    if (response.action !== "accept") return undefined;
    const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
    const other = typeof content.other === "string" ? content.other.trim().slice(0, MAX_OTHER_CHARS) : "";
    if (other) return { selected: [], other };
    // Only the question's own labels count: a client that sends anything else picked nothing.
    const labels = new Set(question.options.map((option) => option.label));
    const given = Array.isArray(content.choice) ? content.choice : [content.choice];
    const selected = given.filter((value): value is string => typeof value === "string" && labels.has(value));
    if (selected.length === 0) return undefined;
    return { selected: question.multiSelect ? selected : selected.slice(0, 1) };
  }
}
