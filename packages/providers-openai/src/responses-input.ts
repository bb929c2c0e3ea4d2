import type { Message, ModelOptions, ToolResultMessage, ToolSchema } from "@bridle/core";
import { degradeForeignReasoning, imageUrl, isNativeReasoning } from "@bridle/provider-kit";
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputItem,
} from "openai/resources/responses/responses";

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
): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
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
        items.push({
          type: "function_call_output",
          call_id: message.toolCallId,
          output: toolOutput(message),
        });
        break;
    }
  }
  return items;
}

function toolOutput(message: ToolResultMessage): string | ResponseFunctionCallOutputItemList {
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
}

export function toResponsesBody(
  settings: ResponsesSettings,
  request: {
    system?: string;
    messages: readonly Message[];
    tools: readonly ToolSchema[];
    options?: ModelOptions;
  },
  provider: string,
): ResponseCreateParamsStreaming {
  const options = request.options ?? {};
  const tools: FunctionTool[] = request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: { ...tool.inputSchema },
    strict: false,
  }));
  const body: ResponseCreateParamsStreaming = {
    model: settings.model,
    input: toResponsesInput(request.messages, provider, settings.model),
    stream: true,
    // Stateless: nothing is kept server-side, so reasoning travels back as encrypted content.
    store: false,
    ...(request.system ? { instructions: request.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(options.toolChoice && tools.length > 0
      ? {
          tool_choice:
            typeof options.toolChoice === "string"
              ? options.toolChoice
              : { type: "function" as const, name: options.toolChoice.name },
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
