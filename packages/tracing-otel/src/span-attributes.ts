import type { RunEvent, RunUsage, ToolCallPart, Usage } from "@bridle/core";
import { type Attributes, type Span, SpanStatusCode } from "@opentelemetry/api";
import { ATTR, EVENT, OPERATION } from "./attributes.js";
import type { Captured } from "./content.js";
import type { McpToolName } from "./tool-kind.js";

/** Who runs: agent name, session (the convention's conversation), parent run. */
export function identityAttributes(event: RunEvent): Attributes {
  return {
    ...(event.agentName ? { [ATTR.agentName]: event.agentName } : {}),
    ...(event.sessionId ? { [ATTR.conversationId]: event.sessionId } : {}),
    ...(event.parentRunId ? { [ATTR.parentRunId]: event.parentRunId } : {}),
  };
}

/** Token usage; every count is recorded, zero included, so a missing cache hit reads as 0, not unknown. */
export function usageAttributes(usage: Usage): Attributes {
  return {
    [ATTR.inputTokens]: usage.inputTokens,
    [ATTR.outputTokens]: usage.outputTokens,
    [ATTR.cacheReadTokens]: usage.cacheReadTokens,
    [ATTR.cacheCreationTokens]: usage.cacheWriteTokens,
    [ATTR.reasoningTokens]: usage.reasoningTokens,
  };
}

export function runCounterAttributes(usage: RunUsage): Attributes {
  return {
    [ATTR.modelRequests]: usage.modelRequests,
    [ATTR.toolCalls]: usage.toolCalls,
    [ATTR.cancelledToolCalls]: usage.cancelledToolCalls,
  };
}

export function toolAttributes(
  call: ToolCallPart,
  mcp: McpToolName | undefined,
  repairs: readonly string[],
): Attributes {
  return {
    [ATTR.operationName]: OPERATION.executeTool,
    [ATTR.toolName]: call.name,
    [ATTR.toolCallId]: call.id,
    // The convention's "extension" is a tool that calls out to an external system, as MCP tools do.
    [ATTR.toolType]: mcp ? "extension" : "function",
    ...(mcp ? { [ATTR.mcpMethodName]: mcp.method } : {}),
    ...(mcp?.server ? { [ATTR.mcpServer]: mcp.server } : {}),
    ...(mcp?.tool ? { [ATTR.mcpTool]: mcp.tool } : {}),
    ...(repairs.length ? { [ATTR.toolRepairs]: [...repairs] } : {}),
  };
}

/** A run fact that is a moment rather than an operation: recorded as an event on the run's span. */
export function momentOf(event: RunEvent): { name: string; attributes: Attributes } | undefined {
  switch (event.type) {
    case "limit_warning":
      return {
        name: EVENT.limitWarning,
        attributes: {
          "bridle.limit": event.limit,
          "bridle.limit.used": event.used,
          "bridle.limit.max": event.max,
        },
      };
    case "compaction":
      return {
        name: EVENT.compaction,
        attributes: {
          "bridle.compaction.replaced_count": event.replacedCount,
          ...(event.tokensBefore === undefined
            ? {}
            : { "bridle.compaction.tokens_before": event.tokensBefore }),
        },
      };
    case "output_retry":
      return {
        name: EVENT.outputRetry,
        attributes: {
          "bridle.output_retry.attempt": event.attempt,
          "bridle.output_retry.problems": event.problems.length,
        },
      };
    case "hook_failed":
      return {
        name: EVENT.hookFailed,
        attributes: {
          "bridle.hook": event.hook,
          ...(event.hookName ? { "bridle.hook.name": event.hookName } : {}),
        },
      };
    case "user_message_queued":
    case "user_message_delivered":
      // When a steering message or follow-up was typed, and when the model got it; its text is content.
      return {
        name: event.type === "user_message_queued" ? EVENT.userMessageQueued : EVENT.userMessageDelivered,
        attributes: {
          "bridle.user_message.delivery": event.delivery,
          "bridle.user_message.id": event.queueId,
        },
      };
    case "observer_failed":
      return { name: EVENT.observerFailed, attributes: { "bridle.observer": event.observer } };
    case "model_warning":
      // The adapter's own words (an unknown model or price, a dropped setting), never the run's content.
      return {
        name: EVENT.modelWarning,
        attributes: {
          "bridle.model_warning.code": event.code,
          "bridle.model_warning.message": event.message,
        },
      };
    default:
      return undefined;
  }
}

/** Error status with the convention's `error.type`. */
export function markError(span: Span, errorType: string, message: string): void {
  span.setAttribute(ATTR.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export function setCaptured(span: Span, key: string, captured: Captured): void {
  span.setAttribute(key, captured.text);
  if (captured.truncated) span.setAttribute(ATTR.contentTruncated, true);
}

/** Bridle adapter ids whose provider has a different well-known `gen_ai.provider.name`. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  "openai-chat": "openai",
  "openai-responses": "openai",
  mistral: "mistral_ai",
  xai: "x_ai",
  gemini: "gcp.gemini",
  "vertex-ai": "gcp.vertex_ai",
  bedrock: "aws.bedrock",
};

/** The convention's provider name for a Bridle adapter id; unknown ids pass through. */
export function conventionProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}
