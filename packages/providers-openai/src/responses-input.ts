import type { Message, ModelOptions, ToolResultMessage, ToolSchema } from "@bridle/core";
import { degradeForeignReasoning, imageUrl, isNativeReasoning } from "@bridle/provider-kit";
import type {
  CustomTool,
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputImage,
  ResponseInputItem,
  ResponseInputText,
} from "openai/resources/responses/responses";
import { promptCacheKeyField } from "./prompt-cache-key.js";

/** What a Responses reasoning item needs to be replayed: its id and encrypted content. */
export interface ResponsesReasoningBlob {
  readonly id: string;
  readonly encryptedContent: string;
}

export function isResponsesReasoningBlob(blob: unknown): blob is ResponsesReasoningBlob {
  if (typeof blob !== "object" || blob === null) return false;
  const record = blob as Record<string, unknown>;
  return typeof record.id === "string" && typeof record.encryptedContent === "string";
}

/** The neutral conversation as Responses input items (stateless: the whole conversation every time). */
export function toResponsesInput(
  messages: readonly Message[],
  provider: string,
  model?: string,
  freeformTools: ReadonlySet<string> = new Set(),
): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  // Calls to free-form (custom) tools travel as raw text, and so do their results' pairing items.
  const customCalls = new Set<string>();
  for (const message of degradeForeignReasoning(messages, provider, model)) {
    switch (message.role) {
      case "system":
        items.push({ role: "system", content: message.content });
        break;
      case "user":
        items.push({
          role: "user",
          content: message.content.map((part) =>
            part.type === "text"
              ? { type: "input_text" as const, text: part.text }
              : { type: "input_image" as const, image_url: imageUrl(part), detail: "auto" as const },
          ),
        });
        break;
      case "assistant":
        for (const part of message.content) {
          if (part.type === "text") {
            if (part.text) items.push({ role: "assistant", content: part.text });
          } else if (part.type === "tool_call" && freeformTools.has(part.name)) {
            customCalls.add(part.id);
            items.push({
              type: "custom_tool_call",
              call_id: part.id,
              name: part.name,
              input: rawInput(part.arguments),
            });
          } else if (part.type === "tool_call") {
            items.push({
              type: "function_call",
              call_id: part.id,
              name: part.name,
              arguments: part.arguments,
            });
          } else if (isNativeReasoning(part, provider) && isResponsesReasoningBlob(part.blob)) {
            items.push({
              type: "reasoning",
              id: part.blob.id,
              encrypted_content: part.blob.encryptedContent,
              summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
            });
          }
        }
        break;
      case "tool":
        items.push(
          customCalls.has(message.toolCallId)
            ? { type: "custom_tool_call_output", call_id: message.toolCallId, output: toolOutput(message) }
            : { type: "function_call_output", call_id: message.toolCallId, output: toolOutput(message) },
        );
        break;
    }
  }
  return items;
}

/** The raw text a free-form call carried: the adapter stored it as `{ "input": text }`. */
function rawInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      typeof (parsed as { input?: unknown }).input === "string"
    ) {
      return (parsed as { input: string }).input;
    }
  } catch {
    // Not JSON: the arguments are the text itself.
  }
  return args;
}

function toolOutput(message: ToolResultMessage): string | (ResponseInputText | ResponseInputImage)[] {
  if (message.content.every((part) => part.type === "text")) {
    return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  }
  return message.content.map((part) =>
    part.type === "text"
      ? { type: "input_text" as const, text: part.text }
      : { type: "input_image" as const, image_url: imageUrl(part), detail: "auto" as const },
  );
}

export interface ResponsesSettings {
  readonly model: string;
  readonly includeEncryptedReasoning: boolean;
  readonly reasoningSummary: "auto" | "concise" | "detailed" | "none";
  /** Send the request's cache key as `prompt_cache_key`. */
  readonly promptCacheKey: boolean;
}

export function toResponsesBody(
  settings: ResponsesSettings,
  request: {
    system?: string;
    messages: readonly Message[];
    tools: readonly ToolSchema[];
    options?: ModelOptions;
    cacheKey?: string;
  },
  provider: string,
): ResponseCreateParamsStreaming {
  const options = request.options ?? {};
  const tools: (FunctionTool | CustomTool)[] = request.tools.map((tool) =>
    tool.format
      ? {
          type: "custom",
          name: tool.name,
          description: tool.description,
          format: { type: "grammar", syntax: tool.format.syntax, definition: tool.format.definition },
        }
      : {
          type: "function",
          name: tool.name,
          description: tool.description,
          parameters: { ...tool.inputSchema },
          strict: false,
        },
  );
  const freeform = new Set(request.tools.filter((tool) => tool.format).map((tool) => tool.name));
  const body: ResponseCreateParamsStreaming = {
    model: settings.model,
    input: toResponsesInput(request.messages, provider, settings.model, freeform),
    stream: true,
    // Stateless: nothing is kept server-side, so reasoning travels back as encrypted content.
    store: false,
    ...(settings.promptCacheKey ? promptCacheKeyField(request.cacheKey) : {}),
    ...(request.system ? { instructions: request.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(options.toolChoice && tools.length > 0
      ? {
          tool_choice:
            typeof options.toolChoice === "string"
              ? options.toolChoice
              : {
                  type: freeform.has(options.toolChoice.name) ? ("custom" as const) : ("function" as const),
                  name: options.toolChoice.name,
                },
        }
      : {}),
    ...(options.maxOutputTokens === undefined ? {} : { max_output_tokens: options.maxOutputTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.reasoning?.effort
      ? {
          reasoning: {
            effort: options.reasoning.effort,
            ...(settings.reasoningSummary === "none" ? {} : { summary: settings.reasoningSummary }),
          },
        }
      : {}),
    ...(settings.includeEncryptedReasoning ? { include: ["reasoning.encrypted_content" as const] } : {}),
    ...(options.outputSchema
      ? {
          text: {
            format: {
              type: "json_schema" as const,
              name: options.outputSchema.name,
              schema: { ...options.outputSchema.schema },
              strict: false,
              ...(options.outputSchema.description ? { description: options.outputSchema.description } : {}),
            },
          },
        }
      : {}),
  };
  return { ...body, ...(options.extra ?? {}) } as ResponseCreateParamsStreaming;
}
