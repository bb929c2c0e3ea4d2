import type { AssistantMessage, ImagePart, Message, ModelOptions, ToolSchema } from "@bridle/core";
import { deepFreeze, degradeForeignReasoning, imageUrl, isNativeReasoning } from "@bridle/provider-kit";
import type {
  ChatCompletionContentPartImage,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionUserMessageParam,
} from "openai/resources/chat/completions/completions";
import type { ChatCompat } from "./chat-compat.js";
import { promptCacheKeyField } from "./prompt-cache-key.js";

type UserParts = Exclude<ChatCompletionUserMessageParam["content"], string>;

/**
 * The neutral conversation as Chat Completions messages. Consecutive user messages (a harness notice
 * after tool results, say) are merged into one, which every chat template accepts; images a tool
 * returned follow its results in a user message, since tool messages carry text only.
 */
export function toChatMessages(
  system: string | undefined,
  messages: readonly Message[],
  provider: string,
  compat: ChatCompat,
  model?: string,
): ChatCompletionMessageParam[] {
  return chatMessages(system, messages, provider, compat, model);
}

/**
 * What one model (one provider, model name and compat) converted earlier, by transcript message. A run
 * resends the whole transcript every turn and its messages never change, so each assistant message and
 * image-free tool result is converted once instead of once per turn (null: an assistant message that
 * sends nothing). Only request bodies use it: they are serialized and dropped, never handed to a caller
 * who could change a shared entry. The kept conversions are frozen, so their JSON text is kept too
 * (`requestJson` in @bridle/provider-kit).
 */
export type ChatMessageCache = WeakMap<Message, ChatCompletionMessageParam | null>;

function chatMessages(
  system: string | undefined,
  messages: readonly Message[],
  provider: string,
  compat: ChatCompat,
  model: string | undefined,
  cache?: ChatMessageCache,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const systemRole = compat.systemRole ?? "system";
  if (system) out.push({ role: systemRole, content: system });
  let toolImages: ImagePart[] = [];
  const flushImages = () => {
    if (toolImages.length === 0) return;
    pushUser(out, [
      { type: "text", text: "Images returned by the tool calls above:" },
      ...toolImages.map(imageContent),
    ]);
    toolImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    const cached = cache?.get(message);
    if (cached !== undefined) {
      if (cached) out.push(cached);
      continue;
    }
    switch (message.role) {
      case "system":
        out.push({ role: systemRole, content: message.content });
        break;
      case "user":
        pushUser(
          out,
          message.content.map((part) =>
            part.type === "text" ? { type: "text" as const, text: part.text } : imageContent(part),
          ),
        );
        break;
      case "assistant": {
        const converted = assistantMessage(message, provider, compat, model);
        cache?.set(message, deepFreeze(converted));
        if (converted) out.push(converted);
        break;
      }
      case "tool": {
        let text = "";
        const before = toolImages.length;
        for (const part of message.content) {
          if (part.type === "text") text += part.text;
          else toolImages.push(part);
        }
        const converted: ChatCompletionMessageParam = {
          role: "tool",
          tool_call_id: message.toolCallId,
          content: text,
        };
        // A result with images also adds to the user message after the results: convert it every time.
        if (toolImages.length === before) cache?.set(message, deepFreeze(converted));
        out.push(converted);
        break;
      }
    }
  }
  flushImages();
  return out;
}

function assistantMessage(
  original: AssistantMessage,
  provider: string,
  compat: ChatCompat,
  model: string | undefined,
): ChatCompletionMessageParam | null {
  const message = degradeForeignReasoning([original], provider, model)[0] as AssistantMessage;
  const texts: string[] = [];
  let reasoning = "";
  const calls: ChatCompletionMessageToolCall[] = [];
  for (const part of message.content) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "tool_call") {
      calls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments },
      });
    } else if (isNativeReasoning(part, provider)) reasoning += part.text;
  }
  // Separate parts (a degraded <thinking> text and the answer, say) stay apart as paragraphs.
  const text = texts.filter(Boolean).join("\n\n");
  if (!text && calls.length === 0) return null;
  const replay = compat.reasoningReplayField && reasoning ? { [compat.reasoningReplayField]: reasoning } : {};
  return {
    role: "assistant",
    content: text || null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...replay,
  };
}

function pushUser(out: ChatCompletionMessageParam[], parts: UserParts): void {
  const last = out.at(-1);
  if (last?.role === "user") {
    const earlier: UserParts =
      typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
    out[out.length - 1] = { role: "user", content: [...earlier, ...parts] };
    return;
  }
  const only = parts.length === 1 ? parts[0] : undefined;
  out.push({ role: "user", content: only?.type === "text" ? only.text : parts });
}

function imageContent(part: ImagePart): ChatCompletionContentPartImage {
  return { type: "image_url", image_url: { url: imageUrl(part) } };
}

export function toChatBody(
  model: string,
  compat: ChatCompat,
  request: {
    system?: string;
    messages: readonly Message[];
    tools: readonly ToolSchema[];
    options?: ModelOptions;
    cacheKey?: string;
  },
  provider: string,
  cache?: ChatMessageCache,
): ChatCompletionCreateParamsStreaming {
  const options = request.options ?? {};
  const tools = request.tools.map((tool) => ({
    type: "function" as const,
    function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } },
  }));
  const toolChoice = options.toolChoice;
  const body: ChatCompletionCreateParamsStreaming = {
    model,
    messages: chatMessages(request.system, request.messages, provider, compat, model, cache),
    stream: true,
    ...((compat.streamUsage ?? true) ? { stream_options: { include_usage: true } } : {}),
    ...((compat.promptCacheKey ?? true) ? promptCacheKeyField(request.cacheKey) : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice && tools.length > 0
      ? {
          tool_choice:
            typeof toolChoice === "string"
              ? toolChoice
              : { type: "function" as const, function: { name: toolChoice.name } },
        }
      : {}),
    ...(options.maxOutputTokens === undefined
      ? {}
      : { [compat.maxTokensField ?? "max_completion_tokens"]: options.maxOutputTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.reasoning?.effort && (compat.reasoningEffort ?? true)
      ? { reasoning_effort: options.reasoning.effort }
      : {}),
    ...(options.outputSchema && (compat.jsonSchema ?? true)
      ? {
          response_format: {
            type: "json_schema" as const,
            json_schema: {
              name: options.outputSchema.name,
              schema: { ...options.outputSchema.schema },
              ...(options.outputSchema.description ? { description: options.outputSchema.description } : {}),
            },
          },
        }
      : {}),
  };
  return { ...body, ...(options.extra ?? {}) } as ChatCompletionCreateParamsStreaming;
}
