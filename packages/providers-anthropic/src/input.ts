import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type {
  Message,
  ModelOptions,
  ReasoningPart,
  ToolResultContent,
  ToolSchema,
  UserContent,
} from "@bridle/core";
import { argumentsObject, degradeForeignReasoning, isNativeReasoning } from "@bridle/provider-kit";

/** What a thinking block needs to be replayed: its signature, or the redacted block's data. */
export type AnthropicReasoningBlob = { readonly signature: string } | { readonly data: string };

const ephemeral = { type: "ephemeral" } as const;

export interface AnthropicSettings {
  readonly model: string;
  readonly maxOutputTokens: number;
  /** Put cache_control breakpoints on the system prompt, the tools and the latest user turns. */
  readonly promptCaching: boolean;
}

const effortBudget = { minimal: 1024, low: 2048, medium: 8192, high: 24_576 } as const;

export function toAnthropicBody(
  settings: AnthropicSettings,
  request: {
    system?: string;
    messages: readonly Message[];
    tools: readonly ToolSchema[];
    options?: ModelOptions;
  },
  provider: string,
): MessageCreateParamsStreaming {
  const options = request.options ?? {};
  const { system, messages } = toAnthropicMessages(
    request.system,
    request.messages,
    provider,
    settings.model,
  );
  const tools: Tool[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.inputSchema } as Tool.InputSchema,
  }));
  if (settings.promptCaching) {
    const lastSystem = system.at(-1);
    if (lastSystem) system[system.length - 1] = { ...lastSystem, cache_control: ephemeral };
    const lastTool = tools.at(-1);
    if (lastTool) tools[tools.length - 1] = { ...lastTool, cache_control: ephemeral };
    markLatestUserTurns(messages, 2);
  }
  const budget =
    options.reasoning?.budgetTokens ??
    (options.reasoning?.effort ? effortBudget[options.reasoning.effort] : undefined);
  let maxTokens = options.maxOutputTokens ?? settings.maxOutputTokens;
  // Thinking tokens count against max_tokens, which must exceed the budget.
  if (budget !== undefined && maxTokens <= budget) maxTokens = budget + settings.maxOutputTokens;
  const choice = options.toolChoice;
  const body: MessageCreateParamsStreaming = {
    model: settings.model,
    max_tokens: maxTokens,
    messages,
    stream: true,
    ...(system.length > 0 ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice && tools.length > 0
      ? {
          tool_choice:
            choice === "required"
              ? { type: "any" as const }
              : typeof choice === "string"
                ? { type: choice }
                : { type: "tool" as const, name: choice.name },
        }
      : {}),
    ...(budget !== undefined ? { thinking: { type: "enabled" as const, budget_tokens: budget } } : {}),
    // Anthropic rejects a temperature alongside extended thinking.
    ...(options.temperature !== undefined && budget === undefined
      ? { temperature: options.temperature }
      : {}),
  };
  return { ...body, ...(options.extra ?? {}) } as MessageCreateParamsStreaming;
}

/**
 * The neutral conversation as Anthropic messages: strictly alternating roles (consecutive messages of a
 * role are merged, tool results first in their user turn), tool results as user-side tool_result
 * blocks, own thinking replayed with its signature, system messages moved to the system prompt.
 */
export function toAnthropicMessages(
  systemPrompt: string | undefined,
  messages: readonly Message[],
  provider: string,
  model?: string,
): { system: TextBlockParam[]; messages: MessageParam[] } {
  const system: TextBlockParam[] = systemPrompt ? [{ type: "text", text: systemPrompt }] : [];
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role && Array.isArray(last.content)) {
      const merged = [...last.content, ...blocks];
      // Anthropic wants a user turn's tool results before anything else in it.
      if (role === "user")
        merged.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
      last.content = merged;
    } else out.push({ role, content: blocks });
  };
  for (const message of degradeForeignReasoning(messages, provider, model)) {
    switch (message.role) {
      case "system":
        if (message.content) system.push({ type: "text", text: message.content });
        break;
      case "user":
        push("user", message.content.flatMap(userBlock));
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] = [];
        for (const part of message.content) {
          if (part.type === "text") {
            if (part.text) blocks.push({ type: "text", text: part.text });
          } else if (part.type === "tool_call") {
            blocks.push({
              type: "tool_use",
              id: part.id,
              name: part.name,
              input: argumentsObject(part.arguments),
            });
          } else if (isNativeReasoning(part, provider)) {
            const block = thinkingBlock(part);
            if (block) blocks.push(block);
          }
        }
        push("assistant", blocks);
        break;
      }
      case "tool": {
        const result: ToolResultBlockParam = {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: message.content.flatMap(resultBlock),
          ...(message.isError ? { is_error: true } : {}),
        };
        push("user", [result]);
        break;
      }
    }
  }
  // The API wants a user turn first; a history that starts with the model (a resumed fragment) gets one.
  if (out[0]?.role === "assistant")
    out.unshift({ role: "user", content: [{ type: "text", text: "(continued)" }] });
  return { system, messages: out };
}

function thinkingBlock(part: ReasoningPart): ContentBlockParam | undefined {
  const blob = part.blob as Partial<Record<"signature" | "data", unknown>>;
  if (typeof blob.data === "string") return { type: "redacted_thinking", data: blob.data };
  if (typeof blob.signature === "string")
    return { type: "thinking", thinking: part.text, signature: blob.signature };
  return undefined;
}

function userBlock(part: UserContent): Array<TextBlockParam | ImageBlockParam> {
  if (part.type === "text") return part.text ? [{ type: "text", text: part.text }] : [];
  return [imageBlock(part)];
}

function resultBlock(part: ToolResultContent): Array<TextBlockParam | ImageBlockParam> {
  return userBlock(part);
}

function imageBlock(part: { mediaType: string; data?: string; url?: string }): ImageBlockParam {
  if (part.url) return { type: "image", source: { type: "url", url: part.url } };
  return {
    type: "image",
    source: { type: "base64", media_type: part.mediaType as "image/png", data: part.data ?? "" },
  };
}

/** Breakpoints on the last block of the latest user turns, so each request reads what the previous wrote. */
function markLatestUserTurns(messages: MessageParam[], count: number): void {
  let marked = 0;
  for (let i = messages.length - 1; i >= 0 && marked < count; i--) {
    const message = messages[i];
    if (message?.role !== "user" || !Array.isArray(message.content)) continue;
    const last = message.content.at(-1);
    if (!last || last.type === "thinking" || last.type === "redacted_thinking") continue;
    message.content = [
      ...message.content.slice(0, -1),
      { ...last, cache_control: ephemeral } as ContentBlockParam,
    ];
    marked++;
  }
}
