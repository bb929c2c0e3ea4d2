// Attribute and value names from the OpenTelemetry GenAI semantic conventions (Development status; checked
// against semantic-conventions-genai, 2026), plus the few `bridle.*` names for facts the conventions lack.

export const ATTR = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  timeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  mcpMethodName: "mcp.method.name",
  // The MCP conventions' facts of the request behind an MCP tool call.
  mcpSessionId: "mcp.session.id",
  mcpProtocolVersion: "mcp.protocol.version",
  mcpResourceUri: "mcp.resource.uri",
  jsonrpcRequestId: "jsonrpc.request.id",
  rpcResponseStatusCode: "rpc.response.status_code",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
  serverAddress: "server.address",
  serverPort: "server.port",
  // Bridle's own facts.
  runId: "bridle.run.id",
  parentRunId: "bridle.run.parent_id",
  resumed: "bridle.run.resumed",
  stopReason: "bridle.run.stop_reason",
  historyLength: "bridle.run.history_length",
  modelRequests: "bridle.usage.model_requests",
  toolCalls: "bridle.usage.tool_calls",
  cancelledToolCalls: "bridle.usage.cancelled_tool_calls",
  request: "bridle.model.request",
  toolRepairs: "bridle.tool.repairs",
  approvalApproved: "bridle.approval.approved",
  approvalReason: "bridle.approval.reason",
  approvalPending: "bridle.approval.pending",
  mcpServer: "bridle.mcp.server",
  mcpTool: "bridle.mcp.tool",
  mcpTransport: "bridle.mcp.transport",
  contentTruncated: "bridle.content.truncated",
} as const;

export const OPERATION = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** Span event names for run facts that are moments, not operations. */
export const EVENT = {
  approvalRequested: "bridle.approval.requested",
  approvalResolved: "bridle.approval.resolved",
  limitWarning: "bridle.limit_warning",
  compaction: "bridle.compaction",
  outputRetry: "bridle.output_retry",
  hookFailed: "bridle.hook_failed",
} as const;
