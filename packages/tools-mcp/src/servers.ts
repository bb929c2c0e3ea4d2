import { type AnyTool, BridleError } from "@bridle/core";
import type {
  CreateMessageResult,
  ElicitResult,
  GetPromptResult,
  LoggingMessageNotification,
  Prompt,
} from "@modelcontextprotocol/client";
import { BackgroundServers, type McpToolSource } from "./background.js";
import { type McpConfigInput, type McpServerConfig, parseMcpConfig } from "./config.js";
import { McpConnection } from "./connection.js";
import type { ConnectionStatus, McpElicitation, McpSamplingRequest } from "./connection-settings.js";
import type { McpOAuthOptions } from "./oauth.js";
import {
  buildToolset,
  type DiscoveryFailure,
  type McpWarning,
  type ServerOutcome,
  type ToolsetSettings,
} from "./toolset.js";

export interface McpServersOptions {
  /** The client name servers see in `initialize`. Default "bridle". */
  readonly clientName?: string;
  readonly clientVersion?: string;
  /** Where `${VAR}` references in the config are looked up. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `${workspaceFolder}` in the config, and where a relative `envFile` is found. Default process.cwd(). */
  readonly workspaceFolder?: string;
  /** Milliseconds to start a server and complete the handshake. Default 30 000. */
  readonly connectTimeoutMs?: number;
  /**
   * Milliseconds a call may go without a response or a progress notification (each notification starts the
   * wait again). A server's own `timeout` overrides it. Default 60 000.
   */
  readonly callTimeoutMs?: number;
  /** Milliseconds a call may take in all, progress or not. Default 600 000. */
  readonly maxCallMs?: number;
  /** Characters of text a result may give the model; the rest is cut with a note. Default 50 000. */
  readonly maxOutputChars?: number;
  /** Add mcp_list_resources and mcp_read_resource when a server offers resources. Default true. */
  readonly resources?: boolean;
  /**
   * A stdio server's stderr (its logs) as it arrives. It is not shown otherwise; the last lines are kept
   * for the error a crash produces.
   */
  readonly onStderr?: (server: string, text: string) => void;
  /** Mark MCP tools `requires_approval`: all of them, or those the predicate picks. Default none. */
  readonly requireApproval?: boolean | ((server: string, tool: string) => boolean);
  /**
   * The most tools one server contributes; beyond it, the first ones by name (code-unit order) are kept,
   * whatever order the server lists them in. Default 128.
   */
  readonly maxToolsPerServer?: number;
  /**
   * Bytes of tool definitions (name, description, input schema, as sent to the model) all MCP tools may
   * add to every model request. Servers are taken in config order, each one's tools by name; a tool that
   * would pass the budget is left out. Default 262 144 (256 KiB).
   */
  readonly maxSchemaBytes?: number;
  /** Told each warning as `discover` finds it (a cap hit, a tool definition repaired or left out). */
  readonly onWarning?: (warning: McpWarning) => void;
  /**
   * Answers a server's request for user input (form or URL elicitation), through an approver or an
   * interactive UI. Without it every request is declined at once, so a server never waits on nobody.
   * `signal` aborts when the answer is no longer wanted (the server withdrew the request, the calls waiting
   * on it were aborted or ended, the servers are closing): stop asking then.
   */
  readonly onElicitation?: (request: McpElicitation, signal: AbortSignal) => Promise<ElicitResult>;
  /**
   * OAuth for HTTP servers that answer 401 (the MCP authorization spec, through the SDK: metadata
   * discovery, dynamic registration or a client ID metadata document, PKCE, scopes, step-up, refresh).
   * Sessions are kept per server in a 0600 file under the user's config folder unless `store` is given.
   */
  readonly oauth?: McpOAuthOptions;
  /**
   * Answers a server's `sampling/createMessage` with a completion from your model (put your approval in
   * front of it). Without it sampling is not offered to servers. `signal` aborts as `onElicitation`'s does.
   */
  readonly onSampling?: (request: McpSamplingRequest, signal: AbortSignal) => Promise<CreateMessageResult>;
  /** A server's log messages. Those sent during a call also reach its run as `tool_progress` (`log`). */
  readonly onLog?: (server: string, message: LoggingMessageNotification["params"]) => void;
  /** A server said its tools, prompts or resources changed (tools are refetched before this is told). */
  readonly onListChanged?: (server: string, list: "tools" | "prompts" | "resources") => void;
}

/** One prompt a server offers, naming the server. */
export interface McpPrompt extends Prompt {
  readonly server: string;
}

const DEFAULT_MAX_TOOLS_PER_SERVER = 128;
const DEFAULT_MAX_SCHEMA_BYTES = 256 * 1024;

export interface Discovery {
  readonly tools: readonly AnyTool[];
  readonly failures: readonly DiscoveryFailure[];
  /**
   * What was changed to make the tools usable: caps hit, definitions repaired or left out, input schemas
   * the bridge checks only in part (an external `$ref`, a schema the validator refuses: the server checks).
   */
  readonly warnings: readonly McpWarning[];
}

/**
 * The configured MCP servers, as Bridle tools. Nothing starts until `discover`/`tools` (or a call) needs it.
 * A server whose tool list changes tells `onToolsChanged` listeners; tools already handed out keep working
 * against the live list, and the next `tools()` returns the new one. `close` stops every server.
 */
export class McpServers implements AsyncDisposable {
  readonly #connections: McpConnection[];
  readonly #options: McpServersOptions;
  readonly #listeners = new Set<(server: string) => void>();
  // What the config held that is not used, told by the first discover() or background().
  #configWarnings: McpWarning[] = [];
  #background: BackgroundServers | undefined;

  constructor(config: McpConfigInput | string, options: McpServersOptions = {}) {
    this.#options = options;
    const servers: Record<string, McpServerConfig> = parseMcpConfig(config, {
      ...(options.env ? { env: options.env } : {}),
      ...(options.workspaceFolder ? { workspaceFolder: options.workspaceFolder } : {}),
      onIgnored: (server, message) => this.#configWarnings.push({ server, code: "config_ignored", message }),
    });
    const settings = {
      clientName: options.clientName ?? "bridle",
      clientVersion: options.clientVersion ?? "0.1.0",
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      maxCallMs: options.maxCallMs ?? 600_000,
      onStderr: options.onStderr,
      onToolsChanged: (server: string) => {
        void this.#background?.refresh(server);
        for (const listener of this.#listeners) listener(server);
        options.onListChanged?.(server, "tools");
      },
      onListChanged: (server: string, list: "tools" | "prompts" | "resources") =>
        options.onListChanged?.(server, list),
      workspaceFolder: options.workspaceFolder ?? process.cwd(),
      onElicitation: options.onElicitation,
      onLog: options.onLog,
      onSampling: options.onSampling,
      oauth: options.oauth,
    };
    this.#connections = Object.entries(servers).map(
      ([name, server]) => new McpConnection(name, server, settings),
    );
  }

  get serverNames(): readonly string[] {
    return this.#connections.map((connection) => connection.name);
  }

  status(): ConnectionStatus[] {
    return this.#connections.map((connection) => connection.status());
  }

  /** Listen for tool list changes; returns the function that stops listening. */
  onToolsChanged(listener: (server: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Connects the servers that are not connected yet (all at once) and builds their tools. A server that
   * fails and a tool whose name collides are reported in `failures`, never dropped silently.
   */
  async discover(): Promise<Discovery> {
    const outcomes: ServerOutcome[] = await Promise.all(
      this.#connections.map(async (connection) => {
        try {
          return {
            connection,
            tools: await connection.tools(),
            hasResources: await connection.hasResources(),
          };
        } catch (error) {
          return { connection, error };
        }
      }),
    );
    const warnings: McpWarning[] = [];
    const warn = (warning: McpWarning) => {
      warnings.push(warning);
      this.#options.onWarning?.(warning);
    };
    for (const warning of this.#configWarnings.splice(0)) warn(warning);
    const { tools, failures } = buildToolset(outcomes, this.#toolsetSettings(), warn);
    return { tools, failures, warnings };
  }

  /**
   * Starts every server now, in the background, and returns the tool source to hand a harness
   * (`toolSources`): the first model request never waits for a server, and each server's tools are
   * offered from the first request after it is up. A server that fails is told once, as a
   * `mcp.server_failed` fact on the run that reads the source next. The same source on every call.
   */
  background(): McpToolSource {
    if (!this.#background) {
      const told = this.#options.onWarning;
      for (const warning of this.#configWarnings.splice(0)) told?.(warning);
      this.#background = new BackgroundServers(this.#connections, this.#toolsetSettings(), (warning) =>
        told?.(warning),
      );
    }
    return this.#background;
  }

  /** Like `discover`, but any failure is an error: a BridleError naming every server and tool at fault. */
  async tools(): Promise<AnyTool[]> {
    const { tools, failures } = await this.discover();
    if (failures.length > 0) {
      const code = failures.some((f) => f.code === "connect_failed")
        ? "tool_infrastructure"
        : "duplicate_tool";
      throw new BridleError(code, failures.map((f) => `${f.server}: ${f.message}`).join("\n"));
    }
    return [...tools];
  }

  /** The prompts of every server (connecting those not connected yet); a server that fails is skipped. */
  async listPrompts(signal: AbortSignal = new AbortController().signal): Promise<McpPrompt[]> {
    const settled = await Promise.allSettled(
      this.#connections.map(async (connection) =>
        (await connection.listPrompts(signal)).map((prompt) => ({ ...prompt, server: connection.name })),
      ),
    );
    return settled.flatMap((outcome) => (outcome.status === "fulfilled" ? outcome.value : []));
  }

  /** One prompt, filled in with its arguments: the messages to put before the model. */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    signal: AbortSignal = new AbortController().signal,
  ): Promise<GetPromptResult> {
    const connection = this.#connections.find((candidate) => candidate.name === server);
    if (!connection) throw new BridleError("invalid_config", `no MCP server named "${server}"`);
    return connection.getPrompt(name, args, signal);
  }

  /** Stops every server this object started (and what they started) and refuses later use. */
  async close(): Promise<void> {
    await Promise.all(this.#connections.map((connection) => connection.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #toolsetSettings(): ToolsetSettings {
    const options = this.#options;
    return {
      maxOutputChars: options.maxOutputChars ?? 50_000,
      maxToolsPerServer: options.maxToolsPerServer ?? DEFAULT_MAX_TOOLS_PER_SERVER,
      maxSchemaBytes: options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES,
      resources: options.resources !== false,
      requiresApproval: (server, tool) => this.#approval(server, tool),
    };
  }

  #approval(server: string, tool: string): boolean {
    const rule = this.#options.requireApproval;
    return typeof rule === "function" ? rule(server, tool) : rule === true;
  }
}
