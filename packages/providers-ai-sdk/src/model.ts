import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import type { ModelEvent, ModelOptions, ModelRequest, ModelWarning } from "@bridle/core";
import {
  type ClassifiedError,
  type ProviderConnectionOptions,
  ProviderModel,
  type StreamAttempt,
} from "@bridle/provider-kit";
import { classifyAISDKError } from "./errors.js";
import { aiSdkPrompt } from "./prompt.js";
import { providerOptionsOf } from "./provider-options.js";
import { StreamReader } from "./stream-reader.js";

/** What the transcripts record as the provider of every AI SDK model. */
export const aiSdkProviderName = "ai-sdk";

export interface AISDKModelOptions
  extends Pick<ProviderConnectionOptions, "retry" | "models" | "idleTimeoutMs" | "headers"> {
  /**
   * An AI SDK language model (`@ai-sdk/provider` specification v4), or a function that loads one: the
   * descriptor loads the provider package on the first request, so making a model costs no import.
   */
  readonly model: LanguageModelV4 | (() => Promise<LanguageModelV4>);
  /**
   * The model's name in transcripts and the model table (`ModelInfo` rows). Reasoning is replayed only to
   * a model of the same name. Default: the language model's `modelId`; a loader needs one.
   */
  readonly name?: string;
}

/**
 * Any AI SDK language model as a Bridle model: streamed text, reasoning and tool input, usage with cache
 * tokens, errors classified by provider-kit and retried under its policy (the provider package's own
 * requests are made once per attempt; the AI SDK's retries live in `ai`, which is not involved), abort,
 * and every setting it cannot send said once per model in a warning.
 */
export class AISDKModel extends ProviderModel<LanguageModelV4StreamPart> {
  readonly #load: () => Promise<LanguageModelV4>;
  #loaded: Promise<LanguageModelV4> | undefined;
  readonly #headers: Readonly<Record<string, string>> | undefined;
  readonly #said = new Set<string>();

  constructor(options: AISDKModelOptions) {
    const direct = typeof options.model === "function" ? undefined : options.model;
    const name = options.name ?? direct?.modelId;
    if (!name) throw new TypeError("AISDKModel: name the model (`name`) when `model` is a loader");
    super({ provider: aiSdkProviderName, model: name }, {}, options);
    this.#load = direct ? async () => direct : (options.model as () => Promise<LanguageModelV4>);
    this.#headers = options.headers;
  }

  override stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    return this.#once(super.stream(request));
  }

  /** A warning repeated on every turn is noise: each is said the first time only. */
  async *#once(events: AsyncIterable<ModelEvent>): AsyncIterable<ModelEvent> {
    for await (const event of events) {
      if (event.type === "warning") {
        if (this.#said.has(event.warning.message)) continue;
        this.#said.add(event.warning.message);
      }
      yield event;
    }
  }

  protected override unhonoured(options: ModelOptions): ModelWarning[] {
    const warnings: ModelWarning[] = [];
    const name = `${this.provider} model ${this.model}`;
    if (options.reasoning?.budgetTokens !== undefined && options.reasoning.effort === undefined) {
      warnings.push({
        code: "unsupported_setting",
        message: `${name}: the AI SDK takes a reasoning effort, not a token budget: reasoning.budgetTokens was not sent (set reasoning.effort)`,
      });
    }
    const dropped = providerOptionsOf(options.extra).dropped;
    if (dropped.length > 0) {
      warnings.push({
        code: "unsupported_setting",
        message: `${name}: options.extra is sent as the AI SDK's providerOptions, whose entries are objects keyed by provider; ${dropped.join(", ")} ${dropped.length === 1 ? "is not one and was" : "are not and were"} not sent`,
      });
    }
    return warnings;
  }

  protected override classify(error: unknown, signal: AbortSignal): ClassifiedError {
    return classifyAISDKError(error, signal);
  }

  protected async attempt(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<StreamAttempt<LanguageModelV4StreamPart>> {
    this.#loaded ??= this.#load();
    // A failed load is tried again on the next request (the package may have been installed since).
    const model = await this.#loaded.catch((error: unknown) => {
      this.#loaded = undefined;
      throw error;
    });
    const result = await model.doStream({ ...this.#callOptions(request), abortSignal: signal });
    const reader = new StreamReader(this.provider, this.model);
    return {
      events: partsOf(result.stream),
      read: (part, out) => reader.read(part, out),
      usage: () => reader.usage(),
    };
  }

  #callOptions(request: ModelRequest): LanguageModelV4CallOptions {
    const options = request.options ?? {};
    const tools = request.tools.map((tool) => ({
      type: "function" as const,
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }));
    const choice = options.toolChoice;
    const { providerOptions } = providerOptionsOf(options.extra);
    return {
      prompt: aiSdkPrompt(request.system, request.messages, this.provider, this.model),
      ...(tools.length > 0 ? { tools } : {}),
      ...(tools.length > 0 && choice !== undefined
        ? {
            toolChoice:
              typeof choice === "string" ? { type: choice } : { type: "tool", toolName: choice.name },
          }
        : {}),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.reasoning?.effort === undefined ? {} : { reasoning: options.reasoning.effort }),
      ...(options.outputSchema
        ? {
            responseFormat: {
              type: "json" as const,
              schema: options.outputSchema.schema,
              name: options.outputSchema.name,
              ...(options.outputSchema.description ? { description: options.outputSchema.description } : {}),
            },
          }
        : {}),
      ...(providerOptions ? { providerOptions } : {}),
      ...(this.#headers ? { headers: { ...this.#headers } } : {}),
    };
  }
}

/** Any AI SDK language model as a Bridle model. */
export function createAISDKModel(options: AISDKModelOptions): AISDKModel {
  return new AISDKModel(options);
}

/**
 * The stream's parts, read through its reader (whatever the consumer's lib types say of ReadableStream's
 * own iteration); a consumer that stops early cancels the stream, so the provider's request ends.
 */
async function* partsOf<T>(stream: ReadableStream<T>): AsyncIterable<T> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
