import { randomUUID } from "node:crypto";
import type { RunEvent, UserMessageDelivery } from "./events.js";
import { type UserMessage, userText } from "./messages.js";

/** A user message waiting to join a run (see `RunStream.steer` and `RunStream.followUp`). */
export interface QueuedMessage {
  readonly queueId: string;
  readonly delivery: UserMessageDelivery;
  readonly message: UserMessage;
}

/**
 * The user messages queued on one run, in the order they were queued. Steering messages leave at the next
 * safe point; follow-ups only when nothing else would keep the run going.
 */
export class UserQueue {
  #waiting: QueuedMessage[] = [];

  add(delivery: UserMessageDelivery, message: string | UserMessage, queueId?: string): QueuedMessage {
    const queued: QueuedMessage = {
      queueId: queueId ?? randomUUID(),
      delivery,
      message: typeof message === "string" ? userText(message) : message,
    };
    this.#waiting.push(queued);
    return queued;
  }

  get hasSteering(): boolean {
    return this.#waiting.some((item) => item.delivery === "steer");
  }

  get hasFollowUps(): boolean {
    return this.#waiting.some((item) => item.delivery === "follow_up");
  }

  /** The messages still waiting, oldest first. */
  waiting(): QueuedMessage[] {
    return [...this.#waiting];
  }

  /** Removes and returns the waiting messages of one delivery, oldest first. */
  take(delivery: UserMessageDelivery): QueuedMessage[] {
    const taken = this.#waiting.filter((item) => item.delivery === delivery);
    this.#waiting = this.#waiting.filter((item) => item.delivery !== delivery);
    return taken;
  }
}

/**
 * The messages a session's events show as queued and never delivered (the run ended first: aborted,
 * failed, paused for approval), oldest first. Pass them as the next run's `queued` to deliver them there;
 * they keep their queue ids, so a later reading of the session sees them delivered.
 */
export function undeliveredMessages(events: Iterable<RunEvent>): QueuedMessage[] {
  const waiting = new Map<string, QueuedMessage>();
  for (const event of events) {
    if (event.type === "user_message_queued") {
      waiting.set(event.queueId, {
        queueId: event.queueId,
        delivery: event.delivery,
        message: event.message,
      });
    } else if (event.type === "user_message_delivered") {
      waiting.delete(event.queueId);
    }
  }
  return [...waiting.values()];
}
