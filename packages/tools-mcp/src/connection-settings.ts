import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  LoggingMessageNotification,
} from "@modelcontextprotocol/client";
import type { McpOAuthOptions } from "./oauth.js";
import type { TransportKind } from "./transport.js";

export interface ConnectionSettings {
  readonly clientName: string;
  readonly clientVersion: string;
  readonly connectTimeoutMs: number;
  /** A call fails after this long without a response or a progress notification. */
  readonly callTimeoutMs: number;
  /** A call fails after this long whatever progress it reports. */
  readonly maxCallMs: number;
  /** Called after the server's tool list changed and was fetched again. */
  readonly onToolsChanged: (server: string) => void;
  /** Receives a stdio server's stderr as it arrives. */
  readonly onStderr: ((server: string, text: string) => void) | undefined;
  /** Called after a server said its prompts or resources changed. */
  readonly onListChanged: (server: string, list: "tools" | "prompts" | "resources") => void;
  /** The folder servers are told is the workspace (the one root offered). */
  readonly workspaceFolder: string;
  /** Answers a server's elicitation; without it every request is declined. */
  readonly onElicitation:
    | ((request: McpElicitation, signal: AbortSignal) => Promise<ElicitResult>)
    | undefined;
  /** OAuth for HTTP servers that ask for it. */
  readonly oauth: McpOAuthOptions | undefined;
  /** Answers a server's sampling request (a completion from the harness's model); absent: not offered. */
  readonly onSampling:
    | ((request: McpSamplingRequest, signal: AbortSignal) => Promise<CreateMessageResult>)
    | undefined;
  /** Receives the server's log messages (`notifications/message`). */
  readonly onLog: ((server: string, message: LoggingMessageNotification["params"]) => void) | undefined;
}

/** A server's request for a completion from the client's model, naming the server. */
export type McpSamplingRequest = CreateMessageRequest["params"] & { readonly server: string };

/** A server's request for input from the user, naming the server. */
export type McpElicitation = ElicitRequest["params"] & { readonly server: string };

export type ConnectionState = "idle" | "connecting" | "ready" | "crashed" | "closed";

export interface ConnectionStatus {
  readonly server: string;
  readonly state: ConnectionState;
  readonly transport?: TransportKind;
  readonly pid?: number;
  /** Why the last connection ended or failed. */
  readonly error?: string;
  readonly restarts: number;
}
