import type {
  JSONObject,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderMetadata,
} from "@ai-sdk/provider";
import type { ImagePart, Message, ToolResultMessage } from "@bridle/core";
import { argumentsObject, degradeForeignReasoning, isNativeReasoning } from "@bridle/provider-kit";

/**
 * The conversation in the AI SDK's prompt format. Reasoning goes back as reasoning only to the same
 * provider and model, with the provider metadata it came with (a signature, an encrypted item) as its
 * provider options, which is how AI SDK providers round-trip it; anything else becomes tagged text.
 */
export function aiSdkPrompt(
  system: string | undefined,
  messages: readonly Message[],
  provider: string,
  model: string,
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (system) prompt.push({ role: "system", content: system });
  for (const message of degradeForeignReasoning(messages, provider, model)) {
    if (message.role === "system") prompt.push({ role: "system", content: message.content });
    else if (message.role === "user") {
      prompt.push({
        role: "user",
        content: message.content.map((part) => (part.type === "text" ? part : filePart(part))),
      });
    } else if (message.role === "assistant") {
      const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
      for (const part of message.content) {
        if (part.type === "text") content.push({ type: "text", text: part.text });
        else if (part.type === "tool_call") {
          content.push({
            type: "tool-call",
            toolCallId: part.id,
            toolName: part.name,
            input: argumentsObject(part.arguments),
          });
        } else if (isNativeReasoning(part, provider)) {
          content.push({
            type: "reasoning",
            text: part.text,
            ...(isMetadata(part.blob) ? { providerOptions: part.blob } : {}),
          });
        }
      }
      prompt.push({ role: "assistant", content });
    } else {
      const result = {
        type: "tool-result" as const,
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: toolOutput(message.content, message.isError),
      };
      // Results of one batch go in one tool message, as the AI SDK itself sends them.
      const last = prompt.at(-1);
      if (last?.role === "tool") last.content.push(result);
      else prompt.push({ role: "tool", content: [result] });
    }
  }
  return prompt;
}

/** A tool result as the AI SDK hands it to a model: text (an error's marked as one), or text and images. */
export function toolOutput(
  content: ToolResultMessage["content"],
  isError: boolean,
): LanguageModelV4ToolResultOutput {
  if (content.every((part) => part.type === "text")) {
    const value = content.map((part) => (part.type === "text" ? part.text : "")).join("");
    return isError ? { type: "error-text", value } : { type: "text", value };
  }
  return {
    type: "content",
    value: content.map((part) =>
      part.type === "text" ? { type: "text" as const, text: part.text } : filePart(part),
    ),
  };
}

function filePart(part: ImagePart): LanguageModelV4FilePart {
  return {
    type: "file",
    mediaType: part.mediaType,
    data: part.url ? { type: "url", url: new URL(part.url) } : { type: "data", data: part.data ?? "" },
  };
}

/** Provider metadata as the reasoning part carried it: provider name → JSON object. */
export function isMetadata(value: unknown): value is SharedV4ProviderMetadata {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (entry): entry is JSONObject => typeof entry === "object" && entry !== null && !Array.isArray(entry),
  );
}
