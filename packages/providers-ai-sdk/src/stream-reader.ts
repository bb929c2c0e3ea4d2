import type {
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4Warning,
} from "@ai-sdk/provider";
import type { ModelEvent, ModelStopReason, ModelWarning, Usage } from "@bridle/core";
import { TurnAssembler } from "@bridle/provider-kit";
import { classifyAISDKError } from "./errors.js";
import { isMetadata } from "./prompt.js";

/**
 * Reads one `doStream` result into model events. Text, reasoning and tool input are keyed by the part ids
 * the provider package gives them; the `finish` part ends the turn. Warnings from `stream-start` are held
 * back until the first output: said earlier, they would count as output and stop a retry of the attempt.
 */
export class StreamReader {
  readonly #turn = new TurnAssembler();
  readonly #provider: string;
  readonly #model: string;
  #pending: ModelWarning[] = [];
  /** Tool inputs streamed as raw text (`inputEncoding: "text"`): their deltas are not JSON. */
  readonly #textInputs = new Set<string>();
  /** Calls the provider runs itself (its own search, code execution): not Bridle's to run. */
  readonly #providerExecuted = new Set<string>();
  /** Calls whose input streamed before their `tool-call` part. */
  readonly #started = new Set<string>();
  #usage: Usage | undefined;

  constructor(provider: string, model: string) {
    this.#provider = provider;
    this.#model = model;
  }

  usage(): Usage | undefined {
    return this.#usage;
  }

  read(part: LanguageModelV4StreamPart, out: ModelEvent[]): void {
    switch (part.type) {
      case "stream-start":
        this.#pending.push(...part.warnings.map((warning) => this.#warning(warning)));
        return;
      case "text-delta":
        this.#emit(out, this.#turn.text(`text:${part.id}`, part.delta));
        return;
      case "reasoning-start":
      case "reasoning-end":
        if (isMetadata(part.providerMetadata) && Object.keys(part.providerMetadata).length > 0)
          this.#turn.reasoningBlob(`reasoning:${part.id}`, part.providerMetadata);
        return;
      case "reasoning-delta":
        this.#emit(out, this.#turn.reasoning(`reasoning:${part.id}`, part.delta));
        if (isMetadata(part.providerMetadata) && Object.keys(part.providerMetadata).length > 0)
          this.#turn.reasoningBlob(`reasoning:${part.id}`, part.providerMetadata);
        return;
      case "tool-input-start":
        if (part.providerExecuted) {
          this.#providerExecuted.add(part.id);
          return;
        }
        if (part.inputEncoding === "text") this.#textInputs.add(part.id);
        this.#started.add(part.id);
        this.#emit(out, this.#turn.toolCall(`tool:${part.id}`, part.id, part.toolName));
        return;
      case "tool-input-delta":
        if (this.#providerExecuted.has(part.id) || this.#textInputs.has(part.id)) return;
        this.#emit(out, this.#turn.toolArguments(`tool:${part.id}`, part.delta));
        return;
      case "tool-call":
        this.#toolCall(part.toolCallId, part.toolName, part.input, part.providerExecuted === true, out);
        return;
      case "finish":
        this.#finish(part.usage, part.finishReason, out);
        return;
      case "error":
        out.push({ type: "error", error: classifyAISDKError(part.error) });
        return;
      default:
        // Sources, files, provider-run tool results, metadata, raw chunks and pings carry nothing a
        // Bridle turn holds.
        return;
    }
  }

  #toolCall(id: string, name: string, input: string, providerExecuted: boolean, out: ModelEvent[]): void {
    if (providerExecuted || this.#providerExecuted.has(id)) return;
    const key = `tool:${id}`;
    if (!this.#started.has(id)) {
      // A provider package that does not stream tool input sends the whole call at once.
      this.#emit(out, this.#turn.toolCall(key, id, name));
      this.#emit(out, this.#turn.toolArguments(key, input));
      return;
    }
    // The final input is authoritative (and the only JSON for a call streamed as raw text).
    if (this.#textInputs.has(id)) this.#emit(out, this.#turn.toolArguments(key, input));
    else this.#turn.toolArgumentsFinal(key, input);
  }

  #finish(usage: LanguageModelV4Usage, reason: LanguageModelV4FinishReason, out: ModelEvent[]): void {
    this.#usage = usageOf(usage);
    if (reason.unified === "error" || reason.unified === "interrupted") {
      const why =
        reason.unified === "error" ? "ended its turn with an error" : "stream ended without completing";
      out.push({
        type: "error",
        error: {
          code: "bad_response",
          message: `the provider's ${why}${reason.raw ? ` (${reason.raw})` : ""}`,
          retryable: false,
        },
        usage: this.#usage,
      });
      return;
    }
    this.#flushWarnings(out);
    out.push({
      type: "done",
      message: this.#turn.message(this.#provider, this.#model),
      usage: this.#usage,
      stopReason: stopReasonOf(reason, this.#turn.hasToolCalls),
    });
  }

  #emit(out: ModelEvent[], event: ModelEvent | undefined): void {
    if (!event) return;
    this.#flushWarnings(out);
    out.push(event);
  }

  #flushWarnings(out: ModelEvent[]): void {
    if (this.#pending.length === 0) return;
    for (const warning of this.#pending) out.push({ type: "warning", warning });
    this.#pending = [];
  }

  #warning(warning: SharedV4Warning): ModelWarning {
    const name = `${this.#provider} model ${this.#model}`;
    const text =
      warning.type === "unsupported"
        ? `${warning.feature} is not supported`
        : warning.type === "compatibility"
          ? `${warning.feature} runs in a compatibility mode`
          : warning.type === "deprecated"
            ? `${warning.setting} is deprecated: ${warning.message}`
            : warning.message;
    const details = "details" in warning && warning.details ? ` (${warning.details})` : "";
    return { code: "unsupported_setting", message: `${name}: ${text}${details}` };
  }
}

function stopReasonOf(reason: LanguageModelV4FinishReason, hasToolCalls: boolean): ModelStopReason {
  switch (reason.unified) {
    case "length":
      return "max_tokens";
    case "content-filter":
      return "content_filter";
    case "tool-calls":
      return "tool_use";
    default:
      // Some providers say "stop" after tool calls: the calls still need their results.
      return hasToolCalls ? "tool_use" : "end_turn";
  }
}

/** The AI SDK's usage in Bridle's terms: input counts every prompt token, cached or not. */
export function usageOf(usage: LanguageModelV4Usage): Usage {
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  return {
    inputTokens: input.total ?? (input.noCache ?? 0) + (input.cacheRead ?? 0) + (input.cacheWrite ?? 0),
    outputTokens: output.total ?? (output.text ?? 0) + (output.reasoning ?? 0),
    cacheReadTokens: input.cacheRead ?? 0,
    cacheWriteTokens: input.cacheWrite ?? 0,
    reasoningTokens: output.reasoning ?? 0,
  };
}
