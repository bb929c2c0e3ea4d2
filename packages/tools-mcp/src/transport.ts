import type { Client, Transport } from "@modelcontextprotocol/client";
import {
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  type HttpServerConfig,
  isStdioConfig,
  type McpServerConfig,
  type StdioServerConfig,
} from "./config.js";
import { boundedWait, untilAborted } from "./in-flight.js";
import { issuerMismatchIn, tolerableLegacyIssuer } from "./legacy-issuer.js";
import { type createOAuthProvider, finishAuthorization, type McpAuthorizationAnswer } from "./oauth.js";
import { descendantPids, stopProcesses } from "./processes.js";

export type TransportKind = "stdio" | "streamable-http" | "sse";

export interface OpenedClient {
  readonly client: Client;
  readonly transport: Transport;
  readonly kind: TransportKind;
  /** The child's pid for stdio servers. */
  readonly pid: number | undefined;
  /** Resolves once every message handed to the transport so far has been sent (or failed). */
  readonly flush: () => Promise<void>;
  /** What the wire showed: the negotiated protocol version, and the id of a request as it is sent. */
  readonly wire: Wire;
}

/**
 * Facts only the wire knows, for tracing: the SDK's client keeps the negotiated protocol version and each
 * request's JSON-RPC id to itself.
 */
export interface Wire {
  /** The protocol version `initialize` settled on. */
  protocolVersion(): string | undefined;
  /**
   * Runs `start` and tells `onId` the id of the first request it sends that `matches` (its method and
   * params): the SDK may await before it sends, so requests are matched, in the order `sending` was called.
   */
  sending<T>(
    matches: (method: string, params: unknown) => boolean,
    onId: (id: string) => void,
    start: () => Promise<T>,
  ): Promise<T>;
}

export interface OpenOptions {
  readonly makeClient: () => Client;
  /** The whole handshake (process start or HTTP, the SSE fallback included, and `initialize`). */
  readonly timeoutMs: number;
  /** Abandons the handshake (the connection is being closed). */
  readonly signal: AbortSignal;
  readonly onStderr: (chunk: string) => void;
  /** OAuth for an HTTP server that asks for it (a 401 naming its authorization server). */
  readonly authProvider?: ReturnType<typeof createOAuthProvider>;
  /** Set once the server turned out to be its own 2025-03-26 authorization server (see legacy-issuer). */
  readonly legacyIssuer?: boolean;
}

// Authorization rounds one handshake may take: the first sign-in, then one step-up to more scopes.
const AUTHORIZATION_ROUNDS = 2;

/**
 * Connects a fresh client to one server. A URL is tried with Streamable HTTP first and, when that fails,
 * with the older HTTP+SSE transport, the fallback the MCP specification describes for old servers.
 */
export async function openClient(config: McpServerConfig, options: OpenOptions): Promise<OpenedClient> {
  let current = options;
  let rounds = 0;
  for (;;) {
    try {
      return await openOnce(config, current);
    } catch (error) {
      if (
        !current.legacyIssuer &&
        !isStdioConfig(config) &&
        tolerableLegacyIssuer(error, new URL(config.url))
      ) {
        // Tried again at once, the one tolerated mismatch allowed from here on; not an authorization round.
        current = { ...current, legacyIssuer: true };
        continue;
      }
      if (!(error instanceof AuthorizationPending) || rounds++ >= AUTHORIZATION_ROUNDS) throw error;
      // The user's sign-in is not part of the handshake's time: it waits only for close(). With the code
      // the authorization server sent back, the SDK exchanges it (with the saved PKCE verifier) for a
      // token, and a fresh handshake uses it.
      await error.finish(await untilAborted(error.code, current.signal));
    }
  }
}

/** The SDK sent the user to authorize; the handshake ends here and starts again with the code. */
class AuthorizationPending extends Error {
  readonly code: Promise<McpAuthorizationAnswer>;
  readonly finish: (code: McpAuthorizationAnswer) => Promise<void>;

  constructor(
    code: Promise<McpAuthorizationAnswer>,
    finish: (code: McpAuthorizationAnswer) => Promise<void>,
  ) {
    super("waiting for the user to authorize");
    this.code = code;
    this.finish = finish;
  }
}

async function openOnce(config: McpServerConfig, options: OpenOptions): Promise<OpenedClient> {
  // One deadline for every step: the SDK's own timeout covers only `initialize`, not a transport's start,
  // and an SSE server that never names its POST endpoint would otherwise hold the handshake open forever.
  const handshake = new AbortController();
  const timer = setTimeout(
    () =>
      handshake.abort(new Error(`no completed handshake within ${options.timeoutMs} ms (connectTimeoutMs)`)),
    options.timeoutMs,
  );
  const stop = () => handshake.abort(new Error("the connection was closed during the handshake"));
  if (options.signal.aborted) stop();
  options.signal.addEventListener("abort", stop, { once: true });
  try {
    return await openWithin(config, options, handshake.signal, Date.now() + options.timeoutMs);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", stop);
  }
}

/**
 * The handshake, without handing `signal` to the SDK: a signal given to `initialize` stays attached to it,
 * and aborting it later would cancel `initialize`, which the specification forbids. A handshake that is
 * given up is ended by closing the client instead.
 */
async function connect(
  client: Client,
  transport: Transport,
  signal: AbortSignal,
  deadline: number,
  cleanUp: () => Promise<unknown> = () => client.close(),
  prior?: { kind: "legacy" },
) {
  const wire = watchWire(transport);
  // Without a probe timeout of its own, `server/discover` may take the whole handshake's time: a server
  // slow to start is not taken for a 2025 one (a 2025 server answers it at once, "method not found").
  const connecting = client.connect(transport, {
    timeout: Math.max(deadline - Date.now(), 1),
    ...(prior ? { prior } : {}),
  });
  try {
    await untilAborted(connecting, signal);
  } catch (error) {
    await boundedWait(cleanUp(), CLOSE_STEP_MS);
    // The SDK's connect settles once it has let go of the transport: wait for that, so nothing is left
    // running.
    await boundedWait(
      connecting.catch(() => {}),
      CLOSE_STEP_MS,
    );
    throw error;
  }
  return wire;
}

async function openWithin(
  config: McpServerConfig,
  options: OpenOptions,
  signal: AbortSignal,
  deadline: number,
): Promise<OpenedClient> {
  if (isStdioConfig(config)) {
    try {
      return await openStdio(config, options, signal, deadline);
    } catch (error) {
      // The server ended (or garbled its answer) when asked `server/discover` before `initialize`, as
      // servers on SDKs that stop at any earlier request do: started again, it is spoken to in 2025 from
      // the first message. Only these servers take a second process.
      if (
        signal.aborted ||
        !(error instanceof SdkError) ||
        error.code !== SdkErrorCode.EraNegotiationFailed
      ) {
        throw error;
      }
      return openStdio(config, options, signal, deadline, { kind: "legacy" });
    }
  }
  const http = config as HttpServerConfig;
  const url = new URL(http.url);
  const requestInit: RequestInit = { headers: http.headers };
  const auth = options.authProvider;
  if (http.type !== "sse") {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit,
      ...(auth ? { authProvider: auth } : {}),
      ...(options.legacyIssuer ? { skipIssuerMetadataValidation: true } : {}),
    });
    const client = options.makeClient();
    try {
      const { flush, wire } = await connect(client, transport, signal, deadline);
      return { client, transport, kind: "streamable-http", pid: undefined, flush, wire };
    } catch (error) {
      const code = error instanceof UnauthorizedError ? auth?.takeAuthorizationCode?.() : undefined;
      if (code) throw new AuthorizationPending(code, (value) => finishAuthorization(transport, value));
      const status = error instanceof SdkHttpError ? error.status : undefined;
      if (status === 401 || status === 403) {
        // Credentials, not an old server: SSE would be refused the same way.
        throw new Error(`the server refused the request (HTTP ${status}); check the configured headers`, {
          cause: error,
        });
      }
      // An authorization server's metadata that fails its check is not a sign of an old server either.
      if (signal.aborted || issuerMismatchIn(error) || (http.type !== undefined && http.type !== "http")) {
        throw error;
      }
      try {
        return await openSse(url, requestInit, options, signal, deadline);
      } catch (sseError) {
        throw new AggregateError(
          [error, sseError],
          `Streamable HTTP failed (${(error as Error).message}) and SSE failed (${(sseError as Error).message})`,
        );
      }
    }
  }
  return openSse(url, requestInit, options, signal, deadline);
}

/**
 * The SDK's stdio transport under its own name: the SDK asks a subclass's server `server/discover` in
 * place, on the session's process, where it would otherwise first spawn a sibling process for the
 * question alone. A 2025 server answers "method not found" and its `initialize` follows on the same pipe.
 */
class SessionStdioTransport extends StdioClientTransport {}

async function openStdio(
  config: StdioServerConfig,
  options: OpenOptions,
  signal: AbortSignal,
  deadline: number,
  prior?: { kind: "legacy" },
): Promise<OpenedClient> {
  const transport = new SessionStdioTransport({
    command: config.command,
    args: config.args,
    env: config.env,
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => options.onStderr(chunk.toString("utf8")));
  const client = options.makeClient();
  // The client's own close waits for the process to exit, which a hung server never does: stop it
  // (and what it started) first, so a failed start leaves nothing running.
  const stopAll = async () => {
    const pid = transport.pid ?? undefined;
    const strays = pid === undefined ? [] : [pid, ...(await descendantPids(pid))];
    // Within CLOSE_STEP_MS, so the SIGKILL is sent before the cleanup is abandoned.
    await stopProcesses(strays, 1_000);
    // The transport itself, too: during the probe the client does not hold it yet.
    await transport.close();
    await client.close();
  };
  const { flush, wire } = await connect(client, transport, signal, deadline, stopAll, prior);
  // Read now: the SDK's transport forgets the child's pid as soon as it is closed.
  return { client, transport, kind: "stdio", pid: transport.pid ?? undefined, flush, wire };
}

async function openSse(
  url: URL,
  requestInit: RequestInit,
  options: OpenOptions,
  signal: AbortSignal,
  deadline: number,
): Promise<OpenedClient> {
  const transport = new SSEClientTransport(url, {
    requestInit,
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    ...(options.legacyIssuer ? { skipIssuerMetadataValidation: true } : {}),
  });
  const client = options.makeClient();
  const { flush, wire } = await connect(client, transport, signal, deadline);
  return { client, transport, kind: "sse", pid: undefined, flush, wire };
}

/** How long one cleanup step (closing a client, ending a session) may take before it is abandoned. */
export const CLOSE_STEP_MS = 2_000;

/**
 * Counts the notifications still being sent, so close() can let cancellations reach the server before the
 * transport goes (requests are left out: over HTTP a request's send lasts until its answer starts), and
 * records what tracing needs from the wire.
 */
function watchWire(transport: Transport): { flush: () => Promise<void>; wire: Wire } {
  const pending = new Set<Promise<void>>();
  // Requests waiting to learn their id, oldest first.
  const waiting: { matches: (method: string, params: unknown) => boolean; onId: (id: string) => void }[] = [];
  let version: string | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => {
    if ("id" in message && "method" in message) {
      const index = waiting.findIndex((entry) => entry.matches(message.method, message.params));
      const [entry] = index === -1 ? [] : waiting.splice(index, 1);
      entry?.onId(String(message.id));
    }
    const sent = send(message, sendOptions);
    if ("id" in message) return sent;
    const settled = sent.then(
      () => {},
      () => {},
    );
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
    return sent;
  };
  // The SDK's client hands the negotiated version to transports that take it (HTTP ones send it as a header).
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (negotiated) => {
    version = negotiated;
    setVersion?.(negotiated);
  };
  return {
    flush: async () => {
      await Promise.all([...pending]);
    },
    wire: {
      protocolVersion: () => version,
      sending: async (matches, onId, start) => {
        const entry = { matches, onId };
        waiting.push(entry);
        try {
          return await start();
        } finally {
          const index = waiting.indexOf(entry);
          if (index !== -1) waiting.splice(index, 1);
        }
      },
    },
  };
}
