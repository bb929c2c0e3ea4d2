import { errorMessage } from "./errors.js";
import type { AssistantMessage } from "./messages.js";
import type { Model, ModelError, ModelEvent, ModelOptions, ModelStopReason, ToolSchema } from "./model.js";
import type { RunContext } from "./run-context.js";
import type { Usage } from "./usage.js";

/** What one model request came back with: a complete turn, or an error. */
export interface ModelCallOutcome {
  readonly message?: AssistantMessage;
  readonly usage?: Usage;
  readonly stopReason?: ModelStopReason;
  readonly error?: ModelError;
}

export interface ModelCall {
  readonly model: Model;
  readonly system: string | undefined;
  readonly tools: readonly ToolSchema[];
  readonly options: ModelOptions | undefined;
}

/** Streams one request, re-emitting its deltas on the run's stream, and returns the complete turn. */
export async function callModel(context: RunContext, call: ModelCall): Promise<ModelCallOutcome> {
  let outcome: ModelCallOutcome = {};
  const streamed = new ToolCallStream(context);
  try {
    const events: AsyncIterable<ModelEvent> = call.model.stream({
      ...(call.system === undefined ? {} : { system: call.system }),
      messages: context.transcript.messages,
      tools: call.tools,
      ...(call.options ? { options: call.options } : {}),
      cacheKey: cacheKeyOf(context),
      signal: context.signal,
    });
    for await (const event of events) {
      if (event.type === "tool_call_delta") {
        streamed.add(event);
        continue;
      }
      streamed.flush();
      switch (event.type) {
        case "text_delta":
          context.emit({ type: "text_delta", delta: event.delta });
          break;
        case "reasoning_delta":
          context.emit({ type: "reasoning_delta", delta: event.delta });
          break;
        case "warning": {
          // Adapters repeat a warning on every request it applies to; the run records it once.
          const key = `model_warning:${event.warning.code}:${event.warning.message}`;
          if (context.emittedWarnings.has(key)) break;
          context.emittedWarnings.add(key);
          context.emit({ type: "model_warning", code: event.warning.code, message: event.warning.message });
          break;
        }
        case "retry":
          context.emit({
            type: "model_retry",
            attempt: event.retry.attempt,
            maxAttempts: event.retry.maxAttempts,
            delayMs: event.retry.delayMs,
            error: event.retry.error,
          });
          break;
        case "done":
          outcome = { message: event.message, usage: event.usage, stopReason: event.stopReason };
          break;
        case "error":
          outcome = { error: event.error, ...(event.usage ? { usage: event.usage } : {}) };
          break;
        default:
          break;
      }
    }
  } catch (error) {
    // Adapters must not throw; one that does is reported like any other provider failure.
    outcome = {
      error: {
        code: context.signal.aborted ? "aborted" : "unknown",
        message: `the model adapter threw: ${errorMessage(error)}`,
        retryable: false,
      },
    };
  }
  streamed.flush();
  return outcome;
}

/** Argument text streamed per call at most; the recorded call always carries all of it. */
export const MAX_STREAMED_ARGUMENTS = 16_384;

type ToolCallDelta = Extract<ModelEvent, { type: "tool_call_delta" }>;

interface StreamedCall {
  id?: string;
  name?: string;
  /** Set once the id and name known so far went out. */
  announced: boolean;
  pending: string;
  sent: number;
  clipped: boolean;
}

/**
 * Turns a provider's tool-call deltas (often a few characters each) into `tool_call_delta` events: the
 * name goes out as soon as it is known, then argument text in pieces that grow with what was sent (32
 * characters first, then a quarter of the text so far), so a UI sees the start of the arguments at once
 * and a long call costs a few dozen events, not thousands. A call's pending text also goes out when the
 * stream moves on to anything else.
 */
class ToolCallStream {
  readonly #context: RunContext;
  readonly #calls = new Map<number, StreamedCall>();
  #last: number | undefined;

  constructor(context: RunContext) {
    this.#context = context;
  }

  add(delta: ToolCallDelta): void {
    if (this.#last !== undefined && this.#last !== delta.index) this.flush();
    this.#last = delta.index;
    let call = this.#calls.get(delta.index);
    if (!call) {
      call = { announced: false, pending: "", sent: 0, clipped: false };
      this.#calls.set(delta.index, call);
    }
    if (delta.id && !call.id) {
      call.id = delta.id;
      call.announced = false;
    }
    if (delta.name && !call.name) {
      call.name = delta.name;
      call.announced = false;
    }
    if (!call.clipped) call.pending += delta.argumentsDelta;
    if (!call.announced && call.name !== undefined) this.#send(delta.index, call);
    else if (call.pending.length >= Math.max(32, Math.floor(call.sent / 4))) this.#send(delta.index, call);
  }

  /** Sends whatever is pending. */
  flush(): void {
    for (const [index, call] of this.#calls) {
      if (call.pending.length > 0 || (!call.announced && (call.name || call.id))) this.#send(index, call);
    }
  }

  #send(index: number, call: StreamedCall): void {
    let text = call.pending;
    let clipped = false;
    if (call.sent + text.length > MAX_STREAMED_ARGUMENTS) {
      text = text.slice(0, MAX_STREAMED_ARGUMENTS - call.sent);
      clipped = true;
    }
    call.pending = "";
    call.sent += text.length;
    const announce = !call.announced;
    call.announced = true;
    if (clipped) call.clipped = true;
    this.#context.emit({
      type: "tool_call_delta",
      index,
      ...(announce && call.id ? { toolCallId: call.id } : {}),
      ...(announce && call.name ? { toolName: call.name } : {}),
      argumentsDelta: text,
      ...(clipped ? { clipped: true as const } : {}),
    });
  }
}

/** Give every tool call a unique, non-empty id, so each result can name its call. */
export function normalizeToolCalls(message: AssistantMessage): AssistantMessage {
  const seen = new Set<string>();
  let changed = false;
  const content = message.content.map((part, index) => {
    if (part.type !== "tool_call") return part;
    let id = part.id;
    if (!id || seen.has(id)) {
      id = `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
      changed = true;
    }
    seen.add(id);
    const name = part.name.trim();
    if (name !== part.name) changed = true;
    return id === part.id && name === part.name ? part : { ...part, id, name };
  });
  return changed ? { ...message, content } : message;
}

/**
 * A session's requests share their prefix across runs, so the session keys the cache (a child run
 * without one, its parent run); a subagent's prefix (its own prompt and tools) is another, so it gets
 * its own key beside its parent's.
 */
function cacheKeyOf(context: RunContext): string {
  const { sessionId, parentRunId, agentName } = context.identity;
  const base = sessionId ?? parentRunId ?? context.runId;
  return agentName ? `${base}:${agentName}` : base;
}
