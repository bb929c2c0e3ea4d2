import type {
  AssistantContent,
  AssistantMessage,
  Message,
  Model,
  ModelError,
  ModelEvent,
  ModelRequest,
  ModelStopReason,
  ToolSchema,
  Usage,
} from "@bridle/core";

export interface ScriptedToolCall {
  readonly name: string;
  /** Raw JSON text, sent exactly as given, or a value to serialize. */
  readonly arguments?: string | Record<string, unknown>;
  readonly id?: string;
}

/** One model turn the script plays back. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly reasoning?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: Partial<Usage>;
  readonly stopReason?: ModelStopReason;
  /** End the turn with this error instead of a response. */
  readonly error?: Partial<ModelError> & { readonly code: ModelError["code"] };
  /** Wait this long before answering (abort cuts it short). */
  readonly delayMs?: number;
  /** Split text into deltas of this many characters (default: one delta). */
  readonly chunkSize?: number;
}

/** The request a scripted turn answers, when the turn is a function of it. */
export interface ScriptRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  readonly system: string | undefined;
  /** 0 for the first request this model receives. */
  readonly index: number;
}

/** @deprecated use ScriptRequest ("context" in Bridle means only what the model sees); kept for one release */
export type ScriptContext = ScriptRequest;

export type ScriptStep = ScriptedTurn | ((request: ScriptRequest) => ScriptedTurn | Promise<ScriptedTurn>);

export interface RecordedRequest {
  readonly system: string | undefined;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
}

export interface ScriptedModelOptions {
  readonly provider?: string;
  readonly model?: string;
  /** Keep a copy of every request for assertions (default true; a benchmark turns it off). */
  readonly record?: boolean;
}

/**
 * A Model that plays back a script: a list of turns, or one function of the request. It follows the Model
 * contract exactly (never throws, honors abort, ends with one done or error event), so core's tests and
 * every package's tests exercise the same paths a real provider takes.
 */
export class ScriptedModel implements Model {
  readonly provider: string;
  readonly model: string;
  readonly requests: RecordedRequest[] = [];
  readonly #steps: ScriptStep | readonly ScriptStep[];
  readonly #record: boolean;
  #index = 0;

  constructor(script: ScriptStep | readonly ScriptStep[], options: ScriptedModelOptions = {}) {
    this.#steps = script;
    this.provider = options.provider ?? "scripted";
    this.model = options.model ?? "scripted-model";
    this.#record = options.record ?? true;
  }

  /** How many requests it has answered. */
  get calls(): number {
    return this.#index;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const index = this.#index++;
    if (this.#record) {
      this.requests.push({ system: request.system, messages: [...request.messages], tools: request.tools });
    }
    let turn: ScriptedTurn;
    try {
      turn = await this.#turn(index, request);
    } catch (error) {
      yield { type: "error", error: { code: "unknown", message: String(error), retryable: false } };
      return;
    }
    if (turn.delayMs) {
      const aborted = await sleep(turn.delayMs, request.signal);
      if (aborted) {
        yield { type: "error", error: { code: "aborted", message: "aborted", retryable: false } };
        return;
      }
    }
    if (request.signal.aborted) {
      yield { type: "error", error: { code: "aborted", message: "aborted", retryable: false } };
      return;
    }
    if (turn.error) {
      yield {
        type: "error",
        error: { message: turn.error.message ?? turn.error.code, retryable: false, ...turn.error },
      };
      return;
    }
    const content: AssistantContent[] = [];
    if (turn.reasoning) {
      yield { type: "reasoning_delta", delta: turn.reasoning };
      content.push({ type: "reasoning", text: turn.reasoning, provider: this.provider });
    }
    if (turn.text) {
      for (const delta of chunks(turn.text, turn.chunkSize)) yield { type: "text_delta", delta };
      content.push({ type: "text", text: turn.text });
    }
    (turn.toolCalls ?? []).forEach((call, i) => {
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
      content.push({
        type: "tool_call",
        id: call.id ?? `call_${index}_${i}`,
        name: call.name,
        arguments: args,
      });
    });
    const message: AssistantMessage = {
      role: "assistant",
      content,
      provider: this.provider,
      model: this.model,
    };
    yield {
      type: "done",
      message,
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        ...turn.usage,
      },
      stopReason: turn.stopReason ?? (turn.toolCalls?.length ? "tool_use" : "end_turn"),
    };
  }

  async #turn(index: number, request: ModelRequest): Promise<ScriptedTurn> {
    const asked: ScriptRequest = {
      messages: request.messages,
      tools: request.tools,
      system: request.system,
      index,
    };
    if (typeof this.#steps === "function") return this.#steps(asked);
    const steps = this.#steps as readonly ScriptStep[];
    const step = steps[index];
    if (step === undefined) {
      return {
        error: {
          code: "bad_response",
          message: `the script has no turn ${index + 1} (it has ${steps.length})`,
        },
      };
    }
    return typeof step === "function" ? step(asked) : step;
  }
}

function* chunks(text: string, size: number | undefined): Generator<string> {
  if (!size || size >= text.length) {
    yield text;
    return;
  }
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** Resolves true if the signal aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
