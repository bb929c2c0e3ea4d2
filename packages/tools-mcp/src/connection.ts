import { errorMessage, type ToolCallEnv, ToolFailure } from "@bridle/core";
import {
  type CallToolResult,
  type GetPromptResult,
  type Tool as McpToolDefinition,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  SdkHttpError,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { failureOfCall, jsonRpcErrorCode, withExchange } from "./call-failure.js";
import { CallQueue } from "./call-queue.js";
import { checkedCallResult } from "./checked-result.js";
import { makeClient } from "./client-setup.js";
import { isStdioConfig, type McpServerConfig } from "./config.js";
import type { ConnectionSettings, ConnectionState, ConnectionStatus } from "./connection-settings.js";
import { connectionFacts, type McpExchange } from "./exchange.js";
import { boundedWait, InFlight } from "./in-flight.js";
import { createOAuthProvider } from "./oauth.js";
import { listAllPrompts, listAllResources } from "./paged-lists.js";
import { RunningCalls } from "./running-calls.js";
import { shutDown } from "./shutdown.js";
import { withStepUp } from "./step-up.js";
import { type ListingNote, listAllTools } from "./tool-listing.js";
import { CLOSE_STEP_MS, type OpenedClient, openClient } from "./transport.js";

interface Live extends OpenedClient {
  tools: readonly McpToolDefinition[];
  /** What listing the tools had to repair or leave out. */
  notes: readonly ListingNote[];
  readonly hasResources: boolean;
  /** Set when the transport broke under a request: the session is not ended politely, it is gone. */
  broken?: string;
}

const STDERR_TAIL = 2_000;
/** The per-request `_meta` key that asks a 2026-07-28 server for its log lines (SEP-2577, deprecated). */
const LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel";

/**
 * One configured server. It connects on first use, keeps the tool list current, and when the server dies
 * (a crashed process, a lost HTTP session) it forgets the connection so the next use starts a new one.
 */
export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly #settings: ConnectionSettings;
  #live: Live | undefined;
  #connecting: Promise<Live> | undefined;
  #state: ConnectionState = "idle";
  #error: string | undefined;
  #stderr = "";
  #connections = 0;
  #closed = false;
  // Aborted by close(), so a server that never answers the handshake does not hold close() up.
  readonly #closing = new AbortController();
  readonly #inFlight = new InFlight();
  readonly #authProvider: ReturnType<typeof createOAuthProvider> | undefined;
  readonly #queue = new CallQueue();
  readonly #running = new RunningCalls();

  constructor(name: string, config: McpServerConfig, settings: ConnectionSettings) {
    this.name = name;
    this.config = config;
    this.#settings = settings;
    if (settings.oauth && !isStdioConfig(config)) {
      this.#authProvider = createOAuthProvider(name, config.url, settings.oauth);
    }
  }

  status(): ConnectionStatus {
    return {
      server: this.name,
      state: this.#state,
      ...(this.#live ? { transport: this.#live.kind } : {}),
      ...(this.#live?.pid === undefined ? {} : { pid: this.#live.pid }),
      ...(this.#error === undefined ? {} : { error: this.#error }),
      restarts: Math.max(this.#connections - 1, 0),
    };
  }

  /** The server's current tools, connecting first if needed. */
  async tools(): Promise<readonly McpToolDefinition[]> {
    return (await this.#ensure()).tools;
  }

  /** What listing the current tools had to repair or leave out (a tool without an input schema, say). */
  listingNotes(): readonly ListingNote[] {
    return this.#live?.notes ?? [];
  }

  async hasResources(): Promise<boolean> {
    return (await this.#ensure()).hasResources;
  }

  /**
   * Runs `work` once every earlier call queued here has finished (see CallQueue): the calls of tools the
   * server does not mark read-only go one at a time, in the model's order.
   */
  inOrder<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    return this.#queue.run(signal, work);
  }

  /**
   * Calls one tool; the result comes with the facts of the exchange (session, protocol version, request
   * id), which a failure carries too, in its details, as `{ server, tool, mcp }`.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    ctx: ToolCallEnv,
  ): Promise<{ result: CallToolResult; exchange: McpExchange }> {
    const live = await this.#ensureFor(ctx.signal);
    let exchange: McpExchange = { method: "tools/call", ...this.#facts(live), tool };
    const definition = live.tools.find((candidate) => candidate.name === tool);
    if (!definition) {
      throw withExchange(
        new ToolFailure(
          "NotFound",
          `MCP server "${this.name}" no longer offers the tool "${tool}" (its tool list changed)`,
        ),
        exchange,
      );
    }
    let raw: unknown;
    try {
      // A result the SDK refuses is that call's failure (see #callFailure), never the connection's.
      raw = await this.#running.track(ctx, tool, (running) =>
        this.#inFlight.run([ctx.signal, this.#closing.signal], (signal) =>
          withStepUp(this.#authProvider, live.transport, signal, () =>
            live.wire.sending(
              (method, params) => method === "tools/call" && (params as { name?: unknown })?.name === tool,
              (requestId) => {
                exchange = { ...exchange, requestId };
                running.requestId = requestId;
              },
              () =>
                live.client.callTool(
                  {
                    name: tool,
                    arguments: args,
                    // From 2026-07-28 on a server logs during a request only when the request names a
                    // level; its lines reach the run as progress (and onLog), as an older server's do unasked.
                    ...(live.client.getProtocolEra() === "modern"
                      ? { _meta: { [LOG_LEVEL_KEY]: "debug" } }
                      : {}),
                  },
                  {
                    signal,
                    timeout: this.#callTimeoutMs(),
                    resetTimeoutOnProgress: true,
                    maxTotalTimeout: this.#settings.maxCallMs,
                    onprogress: (progress) => ctx.progress({ server: this.name, tool, ...progress }),
                    // The checked definition the bridge listed: the SDK checks structured content against
                    // its output schema (and mirrors `x-mcp-header` arguments on 2026-07-28) from it.
                    toolDefinition: definition,
                  },
                ),
            ),
          ),
        ),
      );
    } catch (error) {
      const errorCode = jsonRpcErrorCode(error);
      if (errorCode !== undefined) exchange = { ...exchange, errorCode };
      throw withExchange(this.#callFailure(error, live, `calling ${tool}`, ctx.signal), exchange);
    }
    try {
      return { result: checkedCallResult(raw, this.name, tool), exchange };
    } catch (error) {
      throw error instanceof ToolFailure ? withExchange(error, exchange) : error;
    }
  }

  /** What holds for every request on this connection. */
  #facts(live: Live): Omit<McpExchange, "method"> {
    const sessionId = (live.transport as { sessionId?: string }).sessionId;
    const url = isStdioConfig(this.config) ? undefined : this.config.url;
    const version = live.client.getNegotiatedProtocolVersion() ?? live.wire.protocolVersion();
    return connectionFacts(this.name, live.kind, version, sessionId, url);
  }

  async listResources(
    signal: AbortSignal,
  ): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    const live = await this.#ensureFor(signal);
    try {
      return await this.#inFlight.run([signal, this.#closing.signal], (linked) =>
        listAllResources(live.client, { signal: linked, timeout: this.#callTimeoutMs() }),
      );
    } catch (error) {
      throw this.#callFailure(error, live, "listing resources", signal);
    }
  }

  /** Every page of the server's prompts (none when it offers none). */
  async listPrompts(signal: AbortSignal): Promise<Prompt[]> {
    const live = await this.#ensureFor(signal);
    if (!live.client.getServerCapabilities()?.prompts) return [];
    try {
      return await this.#inFlight.run([signal, this.#closing.signal], (linked) =>
        listAllPrompts(live.client, { signal: linked, timeout: this.#callTimeoutMs() }),
      );
    } catch (error) {
      throw this.#callFailure(error, live, "listing prompts", signal);
    }
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    const live = await this.#ensureFor(signal);
    try {
      return await this.#inFlight.run([signal, this.#closing.signal], (linked) =>
        live.client.getPrompt({ name, arguments: args }, { signal: linked, timeout: this.#callTimeoutMs() }),
      );
    } catch (error) {
      throw this.#callFailure(error, live, `getting the prompt ${name}`, signal);
    }
  }

  /** Reads one resource; the result comes with the facts of the exchange, as `callTool`'s does. */
  async readResource(
    uri: string,
    signal: AbortSignal,
  ): Promise<{ result: ReadResourceResult; exchange: McpExchange }> {
    const live = await this.#ensureFor(signal);
    let exchange: McpExchange = { method: "resources/read", ...this.#facts(live), resourceUri: uri };
    try {
      const result = await this.#inFlight.run([signal, this.#closing.signal], (linked) =>
        live.wire.sending(
          (method, params) => method === "resources/read" && (params as { uri?: unknown })?.uri === uri,
          (requestId) => {
            exchange = { ...exchange, requestId };
          },
          () => live.client.readResource({ uri }, { signal: linked, timeout: this.#callTimeoutMs() }),
        ),
      );
      return { result, exchange };
    } catch (error) {
      const errorCode = jsonRpcErrorCode(error);
      if (errorCode !== undefined) exchange = { ...exchange, errorCode };
      // SDK servers answer an unknown URI with InvalidParams rather than the specification's -32002.
      if (
        error instanceof ProtocolError &&
        error.code === ProtocolErrorCode.InvalidParams &&
        !signal.aborted
      ) {
        throw withExchange(
          new ToolFailure("NotFound", `MCP server "${this.name}" has no resource ${uri}: ${error.message}`),
          exchange,
        );
      }
      throw withExchange(this.#callFailure(error, live, `reading ${uri}`, signal), exchange);
    }
  }

  /**
   * Ends the connection and every process it started; later use is refused. Requests still on the wire
   * are cancelled (and only those); every step is bounded, so a server that does not answer cannot hold
   * close() up.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#state = "closed";
    this.#closing.abort(new Error("the MCP connection was closed"));
    const live = this.#live ?? (await this.#connecting?.catch(() => undefined));
    this.#live = undefined;
    if (!live) return;
    await boundedWait(live.flush(), CLOSE_STEP_MS);
    await shutDown(live);
  }

  async #ensureFor(signal: AbortSignal): Promise<Live> {
    if (signal.aborted) throw new ToolFailure("Cancelled", "the call was aborted");
    if (this.#live) return this.#live;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new ToolFailure("Cancelled", "the call was aborted while connecting"));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([this.#ensure(), aborted]);
    } catch (error) {
      if (error instanceof ToolFailure) throw error;
      throw new ToolFailure("ToolError", errorMessage(error));
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  #ensure(): Promise<Live> {
    if (this.#closed) return Promise.reject(new Error(`MCP server "${this.name}" has been closed`));
    if (this.#live) return Promise.resolve(this.#live);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<Live> {
    this.#state = "connecting";
    this.#stderr = "";
    this.#connections++;
    let opened: OpenedClient;
    try {
      opened = await openClient(this.config, {
        makeClient: () =>
          makeClient(this.name, this.#settings, {
            onToolsChanged: () => void this.#refreshTools(),
            running: this.#running,
            closing: this.#closing.signal,
            callTimeoutMs: this.#callTimeoutMs(),
          }),
        timeoutMs: this.#settings.connectTimeoutMs,
        signal: this.#closing.signal,
        ...(this.#authProvider ? { authProvider: this.#authProvider } : {}),
        onStderr: (chunk) => {
          this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
          this.#settings.onStderr?.(this.name, chunk);
        },
      });
    } catch (error) {
      this.#state = "crashed";
      this.#error = `could not connect to MCP server "${this.name}": ${errorMessage(error)}${this.#stderrNote()}`;
      throw new Error(this.#error, { cause: error });
    }
    const live: Live = {
      ...opened,
      tools: [],
      notes: [],
      hasResources: opened.client.getServerCapabilities()?.resources !== undefined,
    };
    opened.client.onclose = () => this.#lost(live, "the connection closed");
    // A stdio server's death closes the connection at once; over HTTP a dead server only shows as a
    // transport error, while the requests it was answering would wait for their timeouts.
    if (opened.kind !== "stdio") opened.client.onerror = (error) => this.#transportError(live, error);
    try {
      Object.assign(live, await this.#listTools(live, this.#settings.connectTimeoutMs));
    } catch (error) {
      await shutDown(live);
      this.#state = "crashed";
      this.#error = `MCP server "${this.name}" did not list its tools: ${errorMessage(error)}`;
      throw new Error(this.#error, { cause: error });
    }
    if (this.#closed) {
      await shutDown(live);
      throw new Error(`MCP server "${this.name}" has been closed`);
    }
    this.#live = live;
    this.#state = "ready";
    this.#error = undefined;
    return live;
  }

  async #refreshTools(): Promise<void> {
    const live = this.#live;
    if (!live) return;
    try {
      Object.assign(live, await this.#listTools(live, this.#settings.callTimeoutMs));
    } catch (error) {
      this.#error = `refreshing the tool list failed: ${errorMessage(error)}`;
      return;
    }
    this.#settings.onToolsChanged(this.name);
  }

  #listTools(live: Live, timeoutMs: number): Promise<{ tools: McpToolDefinition[]; notes: ListingNote[] }> {
    return this.#inFlight.run([this.#closing.signal], (signal) =>
      withStepUp(this.#authProvider, live.transport, signal, () =>
        listAllTools(live.client, this.name, timeoutMs, signal),
      ),
    );
  }

  /**
   * A network failure of an HTTP transport (a dropped response stream, a refused reconnect) while requests
   * are waiting: the server is taken as gone, so those requests fail now, naming it, instead of at their
   * timeouts, and the next use connects again. Messages the client could not parse are not failures of
   * the connection, and neither is a hiccup while nothing is waiting (the next request will find out).
   */
  #transportError(live: Live, error: Error): void {
    if (this.#live !== live || this.#inFlight.size === 0) return;
    if (error instanceof ProtocolError || error instanceof SyntaxError || error.name === "ZodError") return;
    // An HTTP answer (a 401 or 403 asking for authorization, an expired session) fails its own request
    // at once, and authorization may still save it: the connection itself is fine.
    if (error instanceof UnauthorizedError || error instanceof SdkHttpError) return;
    live.broken = errorMessage(error);
    this.#lost(live, `the transport failed: ${live.broken}`);
  }

  /** Forget a connection that ended by itself; the next use starts a new one. */
  #lost(live: Live, why: string): void {
    if (this.#live !== live) return;
    this.#live = undefined;
    if (this.#closed) return;
    this.#state = "crashed";
    this.#error = `${why}${this.#stderrNote()}`;
    void shutDown(live);
  }

  #callFailure(error: unknown, live: Live, what: string, signal: AbortSignal): ToolFailure {
    if (error instanceof ToolFailure) return error;
    if (signal.aborted)
      return new ToolFailure("Cancelled", `${what} on MCP server "${this.name}" was cancelled`);
    if (this.#closed)
      return new ToolFailure("Cancelled", `MCP server "${this.name}" was closed while ${what}`);
    const failure = failureOfCall(error, this.name, what);
    if (failure) return failure;
    // The connection is gone or the transport broke (a dead process, an unreachable URL, an expired
    // session): drop it so the next call starts the server again.
    const reason = live.broken ?? errorMessage(error);
    this.#lost(live, reason);
    const next = live.kind === "stdio" ? "started again" : "reconnected";
    return new ToolFailure(
      "ToolError",
      `MCP server "${this.name}" stopped while ${what} (${reason}); it will be ${next} on the next call${this.#stderrNote()}`,
    );
  }

  /** How long a request may go without an answer: the server's own setting, or the harness's. */
  #callTimeoutMs(): number {
    return this.config.timeout ?? this.#settings.callTimeoutMs;
  }

  #stderrNote(): string {
    const tail = this.#stderr.trim();
    return tail ? `\nserver stderr (last lines):\n${tail.split("\n").slice(-8).join("\n")}` : "";
  }
}
