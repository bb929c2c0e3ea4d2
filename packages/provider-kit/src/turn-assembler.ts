import type { AssistantContent, AssistantMessage, ModelEvent } from "@bridle/core";

type Slot =
  | { kind: "text"; text: string; final?: string }
  | { kind: "reasoning"; text: string; blob?: unknown; redacted?: boolean }
  | { kind: "tool_call"; id: string; name: string; arguments: string; ordinal: number; final?: string };

/**
 * Builds one assistant turn from a provider's stream. Each provider numbers its output blocks its own way
 * (content block index, output item index, tool call index), so callers address parts by a string key
 * and the assembler keeps them in order of first appearance. Each method returns the event to emit.
 */
export class TurnAssembler {
  #slots: Slot[] = [];
  #byKey = new Map<string, Slot>();
  #tools = 0;

  text(key: string, delta: string): ModelEvent | undefined {
    if (!delta) return undefined;
    const slot = this.#slot(key, () => ({ kind: "text", text: "" }));
    if (slot.kind !== "text") return undefined;
    slot.text += delta;
    return { type: "text_delta", delta };
  }

  /** The complete text of a part, when the provider repeats it at the end: it wins over the deltas. */
  textFinal(key: string, text: string): void {
    const slot = this.#slot(key, () => ({ kind: "text", text: "" }));
    if (slot.kind === "text") slot.final = text;
  }

  reasoning(key: string, delta: string): ModelEvent | undefined {
    if (!delta) return undefined;
    const slot = this.#slot(key, () => ({ kind: "reasoning", text: "" }));
    if (slot.kind !== "reasoning") return undefined;
    slot.text += delta;
    return { type: "reasoning_delta", delta };
  }

  /** Attaches the provider's replay token to a reasoning part; `text` fills it when nothing streamed. */
  reasoningBlob(key: string, blob: unknown, options: { redacted?: boolean; text?: string } = {}): void {
    const slot = this.#slot(key, () => ({ kind: "reasoning", text: "" }));
    if (slot.kind !== "reasoning") return;
    if (blob !== undefined) slot.blob = blob;
    if (options.redacted) slot.redacted = true;
    if (!slot.text && options.text) slot.text = options.text;
  }

  /** Starts a tool call (or fills in its id and name when they arrive late). */
  toolCall(key: string, id: string | undefined, name: string | undefined): ModelEvent {
    const existing = this.#byKey.get(key);
    const slot =
      existing?.kind === "tool_call"
        ? existing
        : this.#slot(key, () => ({
            kind: "tool_call",
            id: "",
            name: "",
            arguments: "",
            ordinal: this.#tools++,
          }));
    if (slot.kind !== "tool_call") throw new Error(`slot ${key} is not a tool call`);
    if (id && !slot.id) slot.id = id;
    if (name) slot.name = slot.name && existing ? slot.name : name;
    return {
      type: "tool_call_delta",
      index: slot.ordinal,
      ...(id ? { id } : {}),
      ...(name ? { name } : {}),
      argumentsDelta: "",
    };
  }

  toolArguments(key: string, delta: string): ModelEvent | undefined {
    if (!delta) return undefined;
    if (!this.#byKey.has(key)) this.toolCall(key, undefined, undefined);
    const slot = this.#byKey.get(key);
    if (slot?.kind !== "tool_call") return undefined;
    slot.arguments += delta;
    return { type: "tool_call_delta", index: slot.ordinal, argumentsDelta: delta };
  }

  /** The complete arguments, when the provider repeats them at the end: they win over the deltas. */
  toolArgumentsFinal(key: string, full: string): void {
    const slot = this.#byKey.get(key);
    if (slot?.kind === "tool_call") slot.final = full;
  }

  get hasToolCalls(): boolean {
    return this.#tools > 0;
  }

  /** Forgets everything: the provider restarted its message. */
  reset(): void {
    this.#slots = [];
    this.#byKey.clear();
    this.#tools = 0;
  }

  message(provider: string, model: string): AssistantMessage {
    const content: AssistantContent[] = [];
    for (const slot of this.#slots) {
      if (slot.kind === "text") {
        const text = slot.final ?? slot.text;
        if (text) content.push({ type: "text", text });
      } else if (slot.kind === "reasoning") {
        if (!slot.text && slot.blob === undefined) continue;
        content.push({
          type: "reasoning",
          text: slot.text,
          provider,
          ...(slot.blob === undefined ? {} : { blob: slot.blob }),
          ...(slot.redacted ? { redacted: true } : {}),
        });
      } else {
        const raw = slot.final ?? slot.arguments;
        // A call without arguments streams none; "{}" is what it means.
        content.push({ type: "tool_call", id: slot.id, name: slot.name, arguments: raw.trim() ? raw : "{}" });
      }
    }
    return { role: "assistant", content, provider, model };
  }

  #slot(key: string, create: () => Slot): Slot {
    let slot = this.#byKey.get(key);
    if (!slot) {
      slot = create();
      this.#byKey.set(key, slot);
      this.#slots.push(slot);
    }
    return slot;
  }
}
