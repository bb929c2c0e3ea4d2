import type { ModelEvent, ModelRequest, ModelStopReason, Usage } from "@bridle/core";
import {
  type EncodedEntries,
  ProviderModel,
  requestJson,
  type StreamAttempt,
  TurnAssembler,
} from "@bridle/provider-kit";
import type { OpenAI } from "openai";
import type { Stream } from "openai/core/streaming";
import type { ChatCompletionChunk } from "openai/resources/chat/completions/completions";
import type { ChatCompat } from "./chat-compat.js";
import { type ChatMessageCache, toChatBody } from "./chat-input.js";
import { type OpenAIConnectionOptions, openaiClient } from "./client.js";
import { openaiModels } from "./models.js";

export interface OpenAIChatModelOptions extends OpenAIConnectionOptions {
  /** The model name as the server knows it ("gpt-4.1", "qwen3:8b", "deepseek/deepseek-r1"…). */
  readonly model: string;
  /** Names this adapter in transcripts (default "openai-chat"); "openrouter" or "vllm" read better. */
  readonly provider?: string;
  /** The server's differences from OpenAI, such as `chatCompat.vllm`. */
  readonly compat?: ChatCompat;
}

/**
 * Chat Completions as a Bridle Model, for OpenAI and any OpenAI-compatible server (vLLM, Ollama,
 * llama.cpp, OpenRouter, DeepSeek, Groq…): point `baseURL` at it and describe its differences in `compat`.
 */
export class OpenAIChatModel extends ProviderModel<ChatCompletionChunk> {
  readonly #client: Promise<OpenAI>;
  readonly #compat: ChatCompat;
  readonly #converted: ChatMessageCache = new WeakMap();
  readonly #encoded: EncodedEntries = new WeakMap();

  constructor(options: OpenAIChatModelOptions) {
    // A server told not to get response_format (compat.jsonSchema false) offers no native structured output.
    super({ provider: options.provider ?? "openai-chat", model: options.model }, openaiModels, options, {
      structuredOutput: options.compat?.jsonSchema ?? true,
    });
    this.#client = openaiClient(options);
    this.#compat = options.compat ?? {};
  }

  /** The SDK, imported when the model was made: its loading is not the provider's silence. */
  protected override prepare(): Promise<unknown> {
    return this.#client;
  }

  protected async attempt(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<StreamAttempt<ChatCompletionChunk>> {
    const body = toChatBody(this.model, this.#compat, request, this.provider, this.#converted);
    const client = await this.#client;
    // Posted as JSON text: the SDK's create() encodes the whole body again each turn, through a replacer
    // that visits every value of the conversation; here each kept message is encoded once (the same
    // bytes). The stream is the SDK's, parsed as create() parses it.
    const events = await client.post<Stream<ChatCompletionChunk>>("/chat/completions", {
      body: requestJson(body, "messages", this.#encoded),
      headers: { "content-type": "application/json" },
      stream: true,
      signal,
    });
    const reader = new ChatStreamReader(this.provider, this.model);
    return { events, read: (chunk, out) => reader.read(chunk, out), end: () => reader.finish() };
  }
}

/** Which delta fields carry reasoning: vLLM, DeepSeek and xAI use the first, OpenRouter and Ollama the second. */
const reasoningFields = ["reasoning_content", "reasoning"] as const;

/** Turns Chat Completions chunks into Bridle model events. */
export class ChatStreamReader {
  readonly #turn = new TurnAssembler();
  readonly #provider: string;
  readonly #model: string;
  #finish: string | undefined;
  #usage: Usage | undefined;
  #reasoningField: string | undefined;

  constructor(provider: string, model: string) {
    this.#provider = provider;
    this.#model = model;
  }

  read(chunk: ChatCompletionChunk, out: ModelEvent[]): void {
    if (chunk.usage) this.#usage = chatUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & Record<string, unknown>;
    for (const field of reasoningFields) {
      const value = delta[field];
      if (typeof value === "string" && value) {
        this.#reasoningField ??= field;
        const event = this.#turn.reasoning("reasoning", value);
        if (event) out.push(event);
      }
    }
    if (typeof delta.content === "string") {
      const event = this.#turn.text("text", delta.content);
      if (event) out.push(event);
    }
    const calls = delta.tool_calls ?? [];
    for (const [position, call] of calls.entries()) {
      // Some servers leave out the index when each chunk carries one call; its position stands in.
      const key = `tool:${call.index ?? position}`;
      out.push(this.#turn.toolCall(key, call.id || undefined, call.function?.name || undefined));
      const event = call.function?.arguments
        ? this.#turn.toolArguments(key, call.function.arguments)
        : undefined;
      if (event) out.push(event);
    }
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  /** The terminal event once the stream ended, or undefined when it never said why it finished. */
  finish(): ModelEvent | undefined {
    if (this.#finish === undefined) return undefined;
    if (this.#reasoningField) this.#turn.reasoningBlob("reasoning", { field: this.#reasoningField });
    return {
      type: "done",
      message: this.#turn.message(this.#provider, this.#model),
      usage: this.#usage ?? {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      stopReason: stopReason(this.#finish, this.#turn.hasToolCalls),
    };
  }
}

function stopReason(finish: string, toolCalls: boolean): ModelStopReason {
  if (finish === "length") return "max_tokens";
  if (finish === "content_filter") return "content_filter";
  // Some servers say "stop" even when the turn ends in tool calls.
  return toolCalls || finish === "tool_calls" || finish === "function_call" ? "tool_use" : "end_turn";
}

/**
 * OpenAI counts cached tokens inside prompt_tokens and reasoning inside completion_tokens. xAI reports
 * reasoning beside completion_tokens (total = prompt + completion + reasoning); it is added back then.
 */
export function chatUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): Usage {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const separate =
    reasoning > 0 && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens + reasoning;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: (usage.completion_tokens ?? 0) + (separate ? reasoning : 0),
    cacheReadTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: reasoning,
  };
}

/** A Chat Completions model on OpenAI or any OpenAI-compatible server. */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): OpenAIChatModel {
  return new OpenAIChatModel(options);
}
