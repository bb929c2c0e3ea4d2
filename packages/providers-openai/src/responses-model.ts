import type { ModelError, ModelEvent, ModelRequest, ModelStopReason, Usage } from "@bridle/core";
import { classifyHttpFailure, ProviderModel, type StreamAttempt, TurnAssembler } from "@bridle/provider-kit";
import type { OpenAI } from "openai";
import type { Stream } from "openai/core/streaming";
import type { ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import { type OpenAIConnectionOptions, openaiClient } from "./client.js";
import { openaiModels } from "./models.js";
import { type ResponsesSettings, toResponsesBody } from "./responses-input.js";

export interface OpenAIResponsesModelOptions extends OpenAIConnectionOptions {
  /** The model name, such as "gpt-5" or "o4-mini". */
  readonly model: string;
  /** Names this adapter in transcripts; reasoning is replayed only to the same provider (default "openai"). */
  readonly provider?: string;
  /**
   * Ask for reasoning items' encrypted content so they can be replayed statelessly (default true). Turn it
   * off for a compatible server that rejects the `include` parameter.
   */
  readonly includeEncryptedReasoning?: boolean;
  /** Reasoning summary detail requested with a reasoning effort (default "auto"). */
  readonly reasoningSummary?: "auto" | "concise" | "detailed" | "none";
  /**
   * Send the request's cache key (one per session) as `prompt_cache_key`, so OpenAI routes the session's
   * requests to the machines holding its prefix (default true). Turn it off for a compatible server that
   * rejects the parameter.
   */
  readonly promptCacheKey?: boolean;
}

/**
 * The OpenAI Responses API as a Bridle Model: stateless (`store: false`, the whole conversation every
 * request), reasoning items replayed with their encrypted content, function tools from core's JSON Schema,
 * and custom (free-form) tools for tools that declare a grammar.
 */
export class OpenAIResponsesModel extends ProviderModel<ResponseStreamEvent> {
  readonly #client: Promise<OpenAI>;
  readonly #settings: ResponsesSettings;

  constructor(options: OpenAIResponsesModelOptions) {
    super({ provider: options.provider ?? "openai", model: options.model }, openaiModels, options);
    this.#client = openaiClient(options);
    this.#settings = {
      model: options.model,
      includeEncryptedReasoning: options.includeEncryptedReasoning ?? true,
      reasoningSummary: options.reasoningSummary ?? "auto",
      promptCacheKey: options.promptCacheKey ?? true,
    };
  }

  /** The SDK, imported when the model was made: its loading is not the provider's silence. */
  protected override prepare(): Promise<unknown> {
    return this.#client;
  }

  protected async attempt(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<StreamAttempt<ResponseStreamEvent>> {
    const body = toResponsesBody(this.#settings, request, this.provider);
    const client = await this.#client;
    // Posted as JSON text, as the chat model posts: the SDK's create() encodes the body through a
    // replacer that visits every value of the conversation, a cost that grows with the session.
    const events = await client.post<Stream<ResponseStreamEvent>>("/responses", {
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
      stream: true,
      signal,
    });
    const reader = new ResponsesStreamReader(this.provider, this.model);
    return { events, read: (event, out) => reader.read(event, out) };
  }
}

/** Turns Responses stream events into Bridle model events, one turn per reader. */
export class ResponsesStreamReader {
  readonly #turn = new TurnAssembler();
  readonly #provider: string;
  readonly #model: string;

  constructor(provider: string, model: string) {
    this.#provider = provider;
    this.#model = model;
  }

  read(event: ResponseStreamEvent, out: ModelEvent[]): void {
    const turn = this.#turn;
    let next: ModelEvent | undefined;
    switch (event.type) {
      case "response.output_item.added": {
        const item = event.item;
        if (item.type === "function_call" || item.type === "custom_tool_call")
          next = turn.toolCall(`${event.output_index}`, item.call_id, item.name);
        break;
      }
      case "response.output_text.delta":
        next = turn.text(`${event.output_index}:${event.content_index}`, event.delta);
        break;
      case "response.output_text.done":
        turn.textFinal(`${event.output_index}:${event.content_index}`, event.text);
        break;
      case "response.refusal.delta":
        next = turn.text(`${event.output_index}:${event.content_index}`, event.delta);
        break;
      case "response.reasoning_summary_part.added":
        // Summary parts of one reasoning item become one reasoning part, a blank line apart.
        if (event.summary_index > 0) next = turn.reasoning(`${event.output_index}`, "\n\n");
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        next = turn.reasoning(`${event.output_index}`, event.delta);
        break;
      case "response.function_call_arguments.delta":
        next = turn.toolArguments(`${event.output_index}`, event.delta);
        break;
      case "response.output_item.done": {
        const item = event.item;
        const key = `${event.output_index}`;
        if (item.type === "function_call") turn.toolArgumentsFinal(key, item.arguments);
        // A free-form call's raw text reaches the tool as its `input` argument (core's ToolInputFormat).
        else if (item.type === "custom_tool_call")
          turn.toolArgumentsFinal(key, JSON.stringify({ input: item.input }));
        else if (item.type === "reasoning") {
          // Summaries from OpenAI; the raw reasoning text from open-weight models served over this API.
          const summary = item.summary.map((part) => part.text).join("\n\n");
          const text = summary || (item.content ?? []).map((part) => part.text).join("");
          const blob = item.encrypted_content
            ? { id: item.id, encryptedContent: item.encrypted_content }
            : undefined;
          turn.reasoningBlob(key, blob, { text });
        }
        break;
      }
      case "response.completed":
      case "response.incomplete": {
        const reason =
          event.type === "response.incomplete" ? event.response.incomplete_details?.reason : undefined;
        out.push({
          type: "done",
          message: turn.message(this.#provider, this.#model),
          usage: responsesUsage(event.response.usage),
          stopReason: stopReason(reason, turn.hasToolCalls),
        });
        return;
      }
      case "response.failed": {
        const error = event.response.error;
        out.push({
          type: "error",
          error: failure(error?.code ?? undefined, error?.message ?? "the response failed"),
        });
        return;
      }
      default:
        break;
    }
    if (next) out.push(next);
  }
}

function failure(code: string | undefined, message: string): ModelError {
  const { retryAfterMs: _, ...error } = classifyHttpFailure({ message, body: { code } });
  return error;
}

function stopReason(incomplete: string | undefined, toolCalls: boolean): ModelStopReason {
  if (incomplete === "max_output_tokens") return "max_tokens";
  if (incomplete === "content_filter") return "content_filter";
  return toolCalls ? "tool_use" : "end_turn";
}

/** Responses counts cached tokens inside input_tokens and reasoning inside output_tokens, as core does. */
export function responsesUsage(usage: ResponseUsage | null | undefined): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: usage?.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** An OpenAI Responses API model. */
export function createOpenAIResponsesModel(options: OpenAIResponsesModelOptions): OpenAIResponsesModel {
  return new OpenAIResponsesModel(options);
}
