import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage, type ToolCallEnv, ToolFailure } from "@bridle/core";
import {
  type CallToolResult,
  Client,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type GetPromptResult,
  type LoggingMessageNotification,
  type Tool as McpToolDefinition,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { CompatibilityCallToolResultSchema } from "@modelcontextprotocol/core";
import { failureOfCall, jsonRpcErrorCode, withExchange } from "./call-failure.js";
import { isStdioConfig, type McpServerConfig } from "./config.js";
import { connectionFacts, type McpExchange } from "./exchange.js";
import { boundedWait, InFlight, untilAborted } from "./in-flight.js";
import { createOAuthProvider, finishAuthorization, type McpOAuthOptions } from "./oauth.js";
import { descendantPids, stopProcesses } from "./processes.js";
import { type ListingNote, listAllTools, PAGE_LIMIT } from "./tool-listing.js";
import { CLOSE_STEP_MS, type OpenedClient, openClient, type TransportKind } from "./transport.js";

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

/** A call on the wire: its run, its tool, and the JSON-RPC id it went out with. */
interface Running {
  readonly ctx: ToolCallEnv;
  readonly tool: string;
  requestId?: string;
}

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
/** How long a server may take to answer `server/discover` before a stdio one is taken as a 2025 server. */
const PROBE_MS = 5_000;

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
  // The end of the queue of calls that must not overlap (see `inOrder`).
  #ordered: Promise<void> = Promise.resolve();
  // The calls running now, so a server's log messages reach the runs that are waiting on it, and a person
  // answering the server does not time them out.
  readonly #running = new Set<Running>();
  // Told when a call ends, so an answer it was waiting for can be given up (see #whileAsking).
  readonly #callEnded = new Set<() => void>();

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
   * Runs `work` once every earlier call queued here has finished: the calls of tools the server does not
   * mark read-only go one at a time, in the order the harness starts them (the model's order), because a
   * server may read, change and write back shared state per call, and two such calls at once lose one
   * change. A call aborted while it waits leaves the queue without running.
   */
  async inOrder<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const before = this.#ordered;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#ordered = before.then(() => mine);
    try {
      await untilAborted(before, signal).catch(() => {
        throw new ToolFailure("Cancelled", "the call was aborted while waiting for an earlier call");
      });
      return await work();
    } finally {
      done();
    }
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
    const running: Running = { ctx, tool };
    this.#running.add(running);
    try {
      // A result the SDK refuses is that call's failure (see #callFailure), never the connection's.
      raw = await this.#inFlight.run([ctx.signal, this.#closing.signal], (signal) =>
        this.#authorized(live, signal, () =>
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
                  // From 2026-07-28 on a server logs during a request only when the request names a level;
                  // its lines reach the run as progress (and onLog), as an older server's do unasked.
                  ...(live.client.getProtocolEra() === "modern"
                    ? { _meta: { [LOG_LEVEL_KEY]: "debug" } }
                    : {}),
                },
                {
                  signal,
                  timeout: this.config.timeout ?? this.#settings.callTimeoutMs,
                  resetTimeoutOnProgress: true,
                  maxTotalTimeout: this.#settings.maxCallMs,
                  onprogress: (progress) => ctx.progress({ server: this.name, tool, ...progress }),
                  // The checked definition the bridge listed: the SDK checks structured content against its
                  // output schema (and mirrors `x-mcp-header` arguments on 2026-07-28) from it.
                  toolDefinition: definition,
                },
              ),
          ),
        ),
      );
    } catch (error) {
      const errorCode = jsonRpcErrorCode(error);
      if (errorCode !== undefined) exchange = { ...exchange, errorCode };
      throw withExchange(this.#callFailure(error, live, `calling ${tool}`, ctx.signal), exchange);
    } finally {
      this.#running.delete(running);
      for (const check of this.#callEnded) check();
    }
    try {
      return { result: this.#checkedResult(raw, tool), exchange };
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

  #checkedResult(raw: unknown, tool: string): CallToolResult {
    const parsed = CompatibilityCallToolResultSchema.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join(".") || "(result)"}: ${issue.message}`.slice(0, 200));
      throw new ToolFailure(
        "ToolError",
        `MCP server "${this.name}" returned an invalid result for ${tool} (${problems.join("; ")}); the call failed, the server keeps running`,
      );
    }
    const result = parsed.data;
    if (!("content" in result)) {
      // A server on the 2024-10-07 protocol answers with `toolResult`.
      return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
    }
    return result as CallToolResult;
  }

  async listResources(
    signal: AbortSignal,
  ): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    const live = await this.#ensureFor(signal);
    try {
      return await this.#inFlight.run([signal, this.#closing.signal], (linked) =>
        this.#listResources(live, linked),
      );
    } catch (error) {
      throw this.#callFailure(error, live, "listing resources", signal);
    }
  }

  async #listResources(
    live: Live,
    signal: AbortSignal,
  ): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    const options = { signal, timeout: this.config.timeout ?? this.#settings.callTimeoutMs };
    {
      const resources: Resource[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < PAGE_LIMIT; page++) {
        const result = await live.client.listResources(cursor ? { cursor } : undefined, options);
        resources.push(...result.resources);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      const templates: ResourceTemplate[] = [];
      cursor = undefined;
      for (let page = 0; page < PAGE_LIMIT; page++) {
        const result: { resourceTemplates: ResourceTemplate[]; nextCursor?: string | undefined } =
          await live.client
            .listResourceTemplates(cursor ? { cursor } : undefined, options)
            .catch((error: unknown) => {
              if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound) {
                return { resourceTemplates: [] };
              }
              throw error;
            });
        templates.push(...result.resourceTemplates);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return { resources, templates };
    }
  }

  /** Every page of the server's prompts (none when it offers none). */
  async listPrompts(signal: AbortSignal): Promise<Prompt[]> {
    const live = await this.#ensureFor(signal);
    if (!live.client.getServerCapabilities()?.prompts) return [];
    try {
      return await this.#inFlight.run([signal, this.#closing.signal], async (linked) => {
        const prompts: Prompt[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < PAGE_LIMIT; page++) {
          const result = await live.client.listPrompts(cursor ? { cursor } : undefined, {
            signal: linked,
            timeout: this.config.timeout ?? this.#settings.callTimeoutMs,
          });
          prompts.push(...result.prompts);
          cursor = result.nextCursor;
          if (!cursor) break;
        }
        return prompts;
      });
    } catch (error) {
      throw this.#callFailure(error, live, "listing prompts", signal);
    }
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    const live = await this.#ensureFor(signal);
    try {
      return await this.#inFlight.run([signal, this.#closing.signal], (linked) =>
        live.client.getPrompt(
          { name, arguments: args },
          { signal: linked, timeout: this.config.timeout ?? this.#settings.callTimeoutMs },
        ),
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
          () =>
            live.client.readResource(
              { uri },
              { signal: linked, timeout: this.config.timeout ?? this.#settings.callTimeoutMs },
            ),
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
        makeClient: () => this.#makeClient(),
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

  #makeClient(): Client {
    const client = new Client(
      { name: this.#settings.clientName, version: this.#settings.clientVersion },
      {
        // 2026-07-28 with servers that offer it (`server/discover`), the 2025 `initialize` handshake with
        // those that do not. On stdio the probe runs in a short-lived sibling process, so a server that
        // exits on an unknown request before `initialize` still gets its one session process; one that
        // ignores the probe is taken as a 2025 server after PROBE_MS.
        versionNegotiation: {
          mode: "auto",
          probe: { timeoutMs: Math.min(PROBE_MS, this.#settings.connectTimeoutMs) },
        },
        capabilities: {
          roots: { listChanged: false },
          // SEP-1034: an accepted form gets the defaults its schema names for fields left out.
          // URL mode too: a server that sends the user to a page is asked like any other (and declined
          // when nobody can answer).
          elicitation: { form: { applyDefaults: true }, url: {} },
          // Offered only when the caller can answer (through its model, behind its own approval).
          ...(this.#settings.onSampling ? { sampling: {} } : {}),
        },
        listChanged: {
          tools: {
            // Refetched here rather than by the SDK, which reads only the first page.
            autoRefresh: false,
            debounceMs: 50,
            onChanged: () => void this.#refreshTools(),
          },
          prompts: {
            autoRefresh: false,
            debounceMs: 50,
            onChanged: () => this.#settings.onListChanged(this.name, "prompts"),
          },
          resources: {
            autoRefresh: false,
            debounceMs: 50,
            onChanged: () => this.#settings.onListChanged(this.name, "resources"),
          },
        },
      },
    );
    const root = this.#settings.workspaceFolder;
    // Roots, sampling and logging are deprecated from 2026-07-28 on; they are kept for older servers.
    client.setRequestHandler("roots/list", () => ({
      roots: [{ uri: pathToFileURL(root).href, name: basename(root) || root }],
    }));
    client.setRequestHandler("elicitation/create", async (request, ctx) => {
      const answer = this.#settings.onElicitation;
      // Nobody to ask: declined, which the server can tell apart from a person's refusal ("cancel").
      if (!answer) return { action: "decline" };
      return this.#whileAsking(client, ctx.mcpReq.signal, (signal) =>
        answer({ ...request.params, server: this.name }, signal),
      );
    });
    const sample = this.#settings.onSampling;
    if (sample) {
      client.setRequestHandler("sampling/createMessage", (request, ctx) =>
        this.#whileAsking(client, ctx.mcpReq.signal, (signal) =>
          sample({ ...request.params, server: this.name }, signal),
        ),
      );
    }
    client.setNotificationHandler("notifications/message", (notification) => {
      this.#settings.onLog?.(this.name, notification.params);
      // Log lines sent while calls wait reach those runs as progress, next to the call they concern.
      for (const { ctx, tool } of this.#running) {
        ctx.progress({ server: this.name, tool, log: notification.params });
      }
    });
    return client;
  }

  /**
   * Runs `asking` (a person answering the server's elicitation, the model its sampling request) with the
   * running calls' timers held: the server is waiting on this side, not silent, so the wait must not time
   * its calls out. `maxCallMs` still bounds each call. The SDK re-arms a request's timer only for progress,
   * through a method it keeps to itself; without it the timers simply run.
   *
   * The signal `asking` gets aborts when the answer is moot: the server withdrew its request, the
   * connection is closing, or every call that was running when it asked has been aborted or has ended.
   */
  async #whileAsking<T>(
    client: Client,
    withdrawn: AbortSignal,
    asking: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const moot = new AbortController();
    const waitingOn = [...this.#running];
    const check = () => {
      const settled = waitingOn.every((call) => call.ctx.signal.aborted || !this.#running.has(call));
      if (waitingOn.length > 0 && settled) moot.abort(new Error("the calls waiting on the answer ended"));
    };
    const stops = [withdrawn, this.#closing.signal, ...waitingOn.map((call) => call.ctx.signal)];
    const onStop = () => (withdrawn.aborted || this.#closing.signal.aborted ? moot.abort() : check());
    for (const signal of stops) signal.addEventListener("abort", onStop);
    this.#callEnded.add(check);
    const reset = (client as unknown as { _resetTimeout?: (id: number) => boolean })._resetTimeout;
    const hold = () => {
      if (typeof reset !== "function") return;
      for (const { requestId } of this.#running) {
        if (requestId === undefined || !/^\d+$/.test(requestId)) continue;
        try {
          reset.call(client, Number(requestId));
        } catch {
          // Past maxCallMs: the call's own timer ends it.
        }
      }
    };
    const every = Math.max(50, Math.floor((this.config.timeout ?? this.#settings.callTimeoutMs) / 3));
    hold();
    const timer = setInterval(hold, every);
    onStop();
    try {
      return await asking(moot.signal);
    } finally {
      clearInterval(timer);
      for (const signal of stops) signal.removeEventListener("abort", onStop);
      this.#callEnded.delete(check);
      hold();
    }
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
      this.#authorized(live, signal, () => listAllTools(live.client, this.name, timeoutMs, signal)),
    );
  }

  /**
   * Runs `request`; when the server asks for more scopes (a 403 with `insufficient_scope`), the SDK sends the
   * user to authorize again, and with the code that comes back the request is tried once more.
   */
  async #authorized<T>(live: Live, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const code =
        error instanceof UnauthorizedError ? this.#authProvider?.takeAuthorizationCode?.() : undefined;
      const transport = live.transport;
      if (
        !code ||
        !(transport instanceof StreamableHTTPClientTransport || transport instanceof SSEClientTransport)
      ) {
        throw error;
      }
      await finishAuthorization(transport, await untilAborted(code, signal));
      return request();
    }
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

  #stderrNote(): string {
    const tail = this.#stderr.trim();
    return tail ? `\nserver stderr (last lines):\n${tail.split("\n").slice(-8).join("\n")}` : "";
  }
}

/** Closes the client and, for a stdio server, stops any process the server left behind. */
async function shutDown(live: OpenedClient & { broken?: string }): Promise<void> {
  const strays = live.pid === undefined ? [] : await descendantPids(live.pid);
  const transport = live.transport as { terminateSession?: () => Promise<void> };
  if (live.kind === "streamable-http" && transport.terminateSession && live.broken === undefined) {
    await boundedWait(transport.terminateSession(), CLOSE_STEP_MS);
  }
  live.client.onclose = undefined;
  live.client.onerror = undefined;
  await boundedWait(live.client.close(), CLOSE_STEP_MS);
  // The client's close was given CLOSE_STEP_MS: a server still running after it is stopped here, with
  // whatever it started.
  await stopProcesses(live.pid === undefined ? strays : [live.pid, ...strays], 2_000);
}
