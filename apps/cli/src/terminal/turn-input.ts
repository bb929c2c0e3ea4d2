// Typing while the agent works: Enter queues a steering message (delivered after the current tool batch,
// before the model's next request); Alt+Enter, or a line starting with /followup, queues a follow-up
// (delivered when the agent would otherwise finish). The queue is shown as it changes, from the run's own
// user_message_queued / user_message_delivered events.
import type { Interface } from "node:readline/promises";
import type { RunEvent, RunStream, UserMessageDelivery } from "@bridle/core";
import { textOf } from "@bridle/core";
import type { Output } from "./render.js";

const FOLLOW_UP = /^\/(?:followup|follow-up)(?:\s+([\s\S]*))?$/;

const label = (delivery: UserMessageDelivery) => (delivery === "steer" ? "steer" : "follow-up");
const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;

interface Keypress {
  readonly name?: string;
  readonly meta?: boolean;
}

export class TurnInput {
  readonly #rl: Interface;
  readonly #input: NodeJS.ReadStream;
  readonly #out: Output;
  #stream: RunStream | undefined;
  #asking = 0;
  /** What was typed as the turn was ending: the next prompt. */
  #late: string[] = [];
  /** Slash commands typed during the turn: commands, not messages, run when the turn ends. */
  #commands: string[] = [];
  readonly #waiting = new Map<string, { delivery: UserMessageDelivery; text: string }>();
  readonly #onLine = (line: string) => this.#take(line, undefined);
  readonly #onKeypress = (_text: string | undefined, key: Keypress | undefined) => {
    if (!this.#stream || this.#asking > 0 || !key?.meta) return;
    if (key.name !== "return" && key.name !== "enter") return;
    const text = this.#rl.line;
    // Readline ignores Alt+Enter: the typed line is still in its buffer. Take it and clear it.
    this.#rl.write(null, { ctrl: true, name: "e" });
    this.#rl.write(null, { ctrl: true, name: "u" });
    this.#take(text, "follow_up");
  };

  constructor(rl: Interface, input: NodeJS.ReadStream, out: Output) {
    this.#rl = rl;
    this.#input = input;
    this.#out = out;
  }

  /** Lines typed from now until `detach` go to this run. */
  attach(stream: RunStream): void {
    this.#stream = stream;
    this.#rl.on("line", this.#onLine);
    this.#input.on("keypress", this.#onKeypress);
  }

  /** The run is over: returns what was typed too late for it (the next prompt), if anything. */
  detach(): string | undefined {
    this.#rl.off("line", this.#onLine);
    this.#input.off("keypress", this.#onKeypress);
    this.#stream = undefined;
    this.#waiting.clear();
    const late = this.#late.join("\n");
    this.#late = [];
    return late || undefined;
  }

  /** The slash commands typed during the last turn, in order (taken once). */
  commands(): string[] {
    const commands = this.#commands;
    this.#commands = [];
    return commands;
  }

  /** Wraps a question asked on the same line reader (an approval): its answer is not a message. */
  async asking<T>(question: () => Promise<T>): Promise<T> {
    this.#asking++;
    try {
      return await question();
    } finally {
      this.#asking--;
    }
  }

  /** Shows the queue as the run's events change it. */
  observe(event: RunEvent): void {
    if (event.type === "user_message_queued") {
      const text = textOf(event.message.content);
      this.#waiting.set(event.queueId, { delivery: event.delivery, text });
      this.#out.write(dim(`queued (${label(event.delivery)}): ${oneLine(text)}\n`));
      this.#showQueue();
    } else if (event.type === "user_message_delivered") {
      this.#waiting.delete(event.queueId);
      this.#out.write(
        dim(`» delivered (${label(event.delivery)}): ${oneLine(textOf(event.message.content))}\n`),
      );
      this.#showQueue();
    }
  }

  #take(raw: string, delivery: UserMessageDelivery | undefined): void {
    const stream = this.#stream;
    if (!stream || this.#asking > 0) return;
    const followUp = FOLLOW_UP.exec(raw.trim());
    if (!followUp && raw.trim().startsWith("/")) {
      this.#commands.push(raw.trim());
      this.#out.write(dim(`(${oneLine(raw.trim(), 60)} runs when this turn ends)\n`));
      return;
    }
    const text = (followUp ? (followUp[1] ?? "") : raw).trim();
    if (!text) return;
    const kind = delivery ?? (followUp ? "follow_up" : "steer");
    try {
      if (kind === "steer") stream.steer(text);
      else stream.followUp(text);
    } catch {
      // The run was already ending: what was typed becomes the next prompt instead of being lost.
      this.#late.push(text);
      this.#out.write(dim("(the turn is ending: that will be your next message)\n"));
    }
  }

  #showQueue(): void {
    if (this.#waiting.size === 0) {
      this.#out.write(dim("queue: empty\n"));
      return;
    }
    const items = [...this.#waiting.values()].map(
      (item) => `[${label(item.delivery)}] ${oneLine(item.text, 40)}`,
    );
    this.#out.write(dim(`queue: ${items.join(" · ")}\n`));
  }
}

function oneLine(text: string, max = 100): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
