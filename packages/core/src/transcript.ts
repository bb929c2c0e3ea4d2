import type { RunEvent } from "./events.js";
import type { AssistantMessage, Message, ToolResultMessage } from "./messages.js";
import { toolCallsOf } from "./messages.js";

/**
 * Builds the conversation from the event stream: the transcript is a projection of the events, never a
 * second record. Tool results of one batch are put back in the order the model asked for them, whatever
 * order they completed in. Feed events in order; `messages` is the transcript so far.
 */
export class TranscriptProjection {
  readonly #messages: Message[] = [];
  #lastAssistant: AssistantMessage | undefined;
  #pending: ToolResultMessage[] = [];

  constructor(history: readonly Message[] = []) {
    this.#messages.push(...history);
    // A run resumed at a paused batch gets that batch's results next: order them by its turn's calls.
    let index = history.length - 1;
    while (index >= 0 && history[index]?.role === "tool") index--;
    const turn = history[index];
    if (turn?.role === "assistant") this.#lastAssistant = turn;
  }

  apply(event: RunEvent): void {
    switch (event.type) {
      case "run_started":
        this.#append(...event.messages);
        break;
      case "model_response":
        this.#append(event.message);
        this.#lastAssistant = event.message;
        break;
      case "tool_call_completed":
        this.#pending.push(event.result);
        break;
      case "limit_warning":
      case "user_message_delivered":
        this.#append(event.message);
        break;
      case "output_retry":
        if (event.message) this.#append(event.message);
        break;
      case "compaction":
        this.#flush();
        this.#messages.splice(0, event.replacedCount, event.summary);
        break;
      default:
        break;
    }
  }

  /** The transcript, with any batch still in flight put in order. */
  get messages(): readonly Message[] {
    this.#flush();
    return this.#messages;
  }

  #append(...messages: readonly Message[]): void {
    this.#flush();
    this.#messages.push(...messages);
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    const order = new Map<string, number>();
    if (this.#lastAssistant) {
      for (const [i, call] of toolCallsOf(this.#lastAssistant).entries()) order.set(call.id, i);
    }
    const rank = (r: ToolResultMessage) => order.get(r.toolCallId) ?? Number.MAX_SAFE_INTEGER;
    this.#pending.sort((a, b) => rank(a) - rank(b));
    this.#messages.push(...this.#pending);
    this.#pending = [];
  }
}

/** The transcript the given events describe. */
export function projectTranscript(events: Iterable<RunEvent>, history: readonly Message[] = []): Message[] {
  const projection = new TranscriptProjection(history);
  for (const event of events) projection.apply(event);
  return [...projection.messages];
}
