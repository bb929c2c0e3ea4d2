import type Anthropic from "@anthropic-ai/sdk";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages/messages";
import type {
  ModelEvent,
  ModelOptions,
  ModelRequest,
  ModelStopReason,
  ModelWarning,
  Usage,
} from "@bridle/core";
import { ProviderModel, type StreamAttempt, TurnAssembler } from "@bridle/provider-kit";
import { type AnthropicConnectionOptions, anthropicClient } from "./client.js";
import { type AnthropicSettings, toAnthropicBody } from "./input.js";
import { anthropicModels } from "./models.js";

export interface AnthropicModelOptions extends AnthropicConnectionOptions {
  /** The model name, such as "claude-sonnet-4-5". */
  readonly model: string;
  /** Names this adapter in transcripts; thinking is replayed only to the same provider (default "anthropic"). */
  readonly provider?: string;
  /** max_tokens when the request sets no maxOutputTokens (default 8192, or the model's maximum when lower). */
  readonly maxOutputTokens?: number;
  /** cache_control on the system prompt, the tools and the two latest user turns (default true). */
  readonly promptCaching?: boolean;
}

/**
 * The Anthropic Messages API as a Bridle Model: streaming, extended thinking (signed and redacted thinking
 * blocks replayed), prompt caching, and usage with cache reads and writes counted into input tokens.
 */
export class AnthropicModel extends ProviderModel<RawMessageStreamEvent> {
  readonly #client: Promise<Anthropic>;
  readonly #settings: AnthropicSettings;

  constructor(options: AnthropicModelOptions) {
    // No native output schema is sent yet (Anthropic's output_format): structured output is validated by
    // the harness, and a request asking for the native form is told so.
    super({ provider: options.provider ?? "anthropic", model: options.model }, anthropicModels, options, {
      structuredOutput: false,
    });
    this.#client = anthropicClient(options);
    this.#settings = {
      model: options.model,
      maxOutputTokens: options.maxOutputTokens ?? Math.min(8192, this.info?.maxOutputTokens ?? 8192),
      promptCaching: options.promptCaching ?? true,
    };
  }

  protected override unhonoured(options: ModelOptions): ModelWarning[] {
    if (options.temperature === undefined || !options.reasoning) return [];
    return [
      {
        code: "unsupported_setting",
        message: `${this.provider} model ${this.model}: temperature is not sent with extended thinking (Anthropic refuses the two together)`,
      },
    ];
  }

  /** The SDK, imported when the model was made: its loading is not the provider's silence. */
  protected override prepare(): Promise<unknown> {
    return this.#client;
  }

  protected async attempt(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<StreamAttempt<RawMessageStreamEvent>> {
    const body = toAnthropicBody(this.#settings, request, this.provider);
    const client = await this.#client;
    const events = await client.messages.create(body, { signal });
    const reader = new AnthropicStreamReader(this.provider, this.model);
    return { events, read: (event, out) => reader.read(event, out), usage: () => reader.knownUsage() };
  }
}

/** Turns Messages stream events into Bridle model events, one turn per reader. */
export class AnthropicStreamReader {
  readonly #turn = new TurnAssembler();
  readonly #provider: string;
  readonly #model: string;
  /** Content block indexes that are our function tool calls (server tools stream JSON too). */
  #toolBlocks = new Set<number>();
  #signatures = new Map<number, string>();
  #started = false;
  #stopReason: string | null = null;
  #usage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

  constructor(provider: string, model: string) {
    this.#provider = provider;
    this.#model = model;
  }

  read(event: RawMessageStreamEvent, out: ModelEvent[]): void {
    const turn = this.#turn;
    let next: ModelEvent | undefined;
    switch (event.type) {
      case "message_start": {
        // A second message_start means the provider restarted the message: what came before is void.
        if (this.#started) {
          turn.reset();
          this.#toolBlocks = new Set();
          this.#signatures = new Map();
        }
        this.#started = true;
        const usage = event.message.usage;
        this.#usage = {
          input: usage.input_tokens ?? 0,
          cacheRead: usage.cache_read_input_tokens ?? 0,
          cacheWrite: usage.cache_creation_input_tokens ?? 0,
          output: usage.output_tokens ?? 0,
        };
        break;
      }
      case "content_block_start": {
        const block = event.content_block;
        const key = `${event.index}`;
        if (block.type === "text") next = turn.text(key, block.text);
        else if (block.type === "thinking") next = turn.reasoning(key, block.thinking);
        else if (block.type === "redacted_thinking")
          turn.reasoningBlob(key, { data: block.data }, { redacted: true });
        else if (block.type === "tool_use") {
          this.#toolBlocks.add(event.index);
          next = turn.toolCall(key, block.id, block.name);
        }
        break;
      }
      case "content_block_delta": {
        const delta = event.delta;
        const key = `${event.index}`;
        if (delta.type === "text_delta") next = turn.text(key, delta.text);
        else if (delta.type === "thinking_delta") next = turn.reasoning(key, delta.thinking);
        else if (delta.type === "signature_delta") {
          this.#signatures.set(event.index, (this.#signatures.get(event.index) ?? "") + delta.signature);
        } else if (delta.type === "input_json_delta" && this.#toolBlocks.has(event.index)) {
          next = turn.toolArguments(key, delta.partial_json);
        }
        break;
      }
      case "content_block_stop": {
        const signature = this.#signatures.get(event.index);
        if (signature) turn.reasoningBlob(`${event.index}`, { signature });
        break;
      }
      case "message_delta": {
        this.#stopReason = event.delta.stop_reason ?? this.#stopReason;
        const usage = event.usage;
        // Output tokens here are cumulative; input and cache counts, when present, replace the early ones.
        this.#usage.output = usage.output_tokens ?? this.#usage.output;
        if (usage.input_tokens != null) this.#usage.input = usage.input_tokens;
        if (usage.cache_read_input_tokens != null) this.#usage.cacheRead = usage.cache_read_input_tokens;
        if (usage.cache_creation_input_tokens != null)
          this.#usage.cacheWrite = usage.cache_creation_input_tokens;
        this.#addIterations((usage as { iterations?: unknown }).iterations);
        break;
      }
      case "message_stop":
        out.push({
          type: "done",
          message: turn.message(this.#provider, this.#model),
          usage: this.usage(),
          stopReason: stopReason(this.#stopReason, turn.hasToolCalls),
        });
        return;
      default:
        break;
    }
    if (next) out.push(next);
  }

  /**
   * With server-side compaction one request runs several iterations (the compaction, then the message),
   * each billed, while the top-level counts describe only the last: the iterations are summed instead.
   */
  #addIterations(iterations: unknown): void {
    if (!Array.isArray(iterations) || iterations.length === 0) return;
    const total = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
    for (const item of iterations as Array<Record<string, unknown>>) {
      total.input += count(item.input_tokens);
      total.cacheRead += count(item.cache_read_input_tokens);
      total.cacheWrite += count(item.cache_creation_input_tokens);
      total.output += count(item.output_tokens);
    }
    this.#usage = total;
  }

  /** Usage once the message started (input tokens are known from message_start on), else undefined. */
  knownUsage(): Usage | undefined {
    return this.#started ? this.usage() : undefined;
  }

  /** Usage so far, normalized: Anthropic's input_tokens leaves out cache reads and writes; core's includes them. */
  usage(): Usage {
    const { input, cacheRead, cacheWrite, output } = this.#usage;
    return {
      inputTokens: input + cacheRead + cacheWrite,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: 0,
    };
  }
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function stopReason(reason: string | null, toolCalls: boolean): ModelStopReason {
  switch (reason) {
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "refusal":
      return "refusal";
    default:
      return toolCalls && reason === null ? "tool_use" : "end_turn";
  }
}

/** An Anthropic Messages API model. */
export function createAnthropicModel(options: AnthropicModelOptions): AnthropicModel {
  return new AnthropicModel(options);
}
