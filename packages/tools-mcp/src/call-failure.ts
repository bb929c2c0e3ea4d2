import { ToolFailure } from "@bridle/core";
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
} from "@modelcontextprotocol/client";
import type { McpExchange } from "./exchange.js";

/** SDK errors that mean the connection itself is gone: the next use starts a new one. */
const CONNECTION_LOST: ReadonlySet<SdkErrorCode> = new Set([
  SdkErrorCode.ConnectionClosed,
  SdkErrorCode.NotConnected,
  SdkErrorCode.SendFailed,
]);
// The specification's code for an unknown resource URI.
const RESOURCE_NOT_FOUND = -32002;

/**
 * The JSON-RPC error code of a failed request, for tracing: the server's, or -32001 for a request the client
 * timed out (the code MCP SDKs have long given a timeout, so a trace keeps one status for it).
 */
export function jsonRpcErrorCode(error: unknown): number | undefined {
  if (error instanceof ProtocolError) return error.code;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return REQUEST_TIMEOUT;
  return undefined;
}

const REQUEST_TIMEOUT = -32001;

/**
 * What a request's failure means for the model, or undefined when the connection itself is gone (a dead
 * process, an unreachable URL, an expired session), which the connection then drops and starts again.
 * `what` says what was being done ("calling echo").
 */
export function failureOfCall(error: unknown, server: string, what: string): ToolFailure | undefined {
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return new ToolFailure(
      "Timeout",
      `MCP server "${server}" sent no response or progress while ${what}; the request was cancelled`,
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    return new ToolFailure(
      "ToolError",
      `MCP server "${server}" returned an invalid result ${what.replace(/^calling /, "for ")} (${resultProblems(error.message)}); the call failed, the server keeps running`,
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.InputRequiredRoundsExceeded) {
    return new ToolFailure(
      "ToolError",
      `MCP server "${server}" kept asking for input while ${what} and never finished (${error.message}); the call failed, the server keeps running`,
    );
  }
  // An HTTP failure (an expired session, a server gone) falls through: the next call connects again.
  if (error instanceof SdkError && !(error instanceof SdkHttpError) && !CONNECTION_LOST.has(error.code)) {
    // The SDK refused this request (a capability, an era's method, a header): this call's failure only.
    return new ToolFailure("ToolError", `MCP server "${server}" failed ${what}: ${error.message}`);
  }
  if (error instanceof ProtocolError) {
    if (error.code === RESOURCE_NOT_FOUND) {
      return new ToolFailure("NotFound", `MCP server "${server}" found nothing ${what}: ${error.message}`);
    }
    // The SDK reports structured content that breaks the tool's declared output schema with the same
    // code as bad arguments; that one is the server's fault, not the model's.
    if (
      error.code === ProtocolErrorCode.InvalidParams &&
      !/output schema|structured content/i.test(error.message)
    ) {
      return new ToolFailure("InvalidInput", `MCP server "${server}" rejected ${what}: ${error.message}`);
    }
    return new ToolFailure("ToolError", `MCP server "${server}" failed ${what}: ${error.message}`);
  }
  return undefined;
}

/**
 * What the SDK found wrong with a result, short: its message carries the schema issues as JSON after the
 * method ("Invalid result for tools/call: [...]").
 */
function resultProblems(message: string): string {
  const json = message.slice(message.indexOf("[")).trim();
  try {
    const issues = JSON.parse(json) as { path?: unknown[]; message?: string }[];
    return issues
      .slice(0, 3)
      .map((issue) => `${issue.path?.join(".") || "(result)"}: ${issue.message}`.slice(0, 200))
      .join("; ");
  } catch {
    return message.replace(/^Invalid result for [^:]*: /, "").slice(0, 300);
  }
}

/** The failure with the exchange's facts in its details, for tracing. */
export function withExchange(failure: ToolFailure, exchange: McpExchange): ToolFailure {
  const details = {
    server: exchange.server,
    ...(exchange.tool === undefined ? {} : { tool: exchange.tool }),
    mcp: exchange,
  };
  return new ToolFailure(failure.kind, failure.message, { details, cause: failure.cause });
}
