import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeSse, type SseEvent } from "./sse.js";

/** What the fake server answers to one request. */
export type FakeReply =
  | {
      readonly kind: "stream";
      readonly events: readonly SseEvent[];
      /** Write the body in slices of this many bytes (splitting events and UTF-8 sequences) instead of per event. */
      readonly chunkBytes?: number;
      /** Send this many events, then keep the connection open until the client goes away. */
      readonly hangAfter?: number;
      /** Send this many events, then cut the connection without finishing the response. */
      readonly dropAfter?: number;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "json";
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Close the connection without any response: a network failure. */
  | { readonly kind: "drop" };

/** A request the fake server received. */
export interface RecordedHttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The JSON body, parsed (undefined when it was not JSON). */
  readonly body: unknown;
  /** True once the client went away before the reply was complete. */
  readonly aborted: boolean;
}

interface MutableRecord extends RecordedHttpRequest {
  aborted: boolean;
}

/**
 * A loopback HTTP server that answers each request with the next scripted reply: server-sent events as a
 * provider streams them, an HTTP error with a JSON body, or a dropped connection. Real SDK clients talk to
 * it over real HTTP, so tests exercise their parsing, headers and abort handling as in production.
 * With no reply left (and none set with `always`) it answers 599 with a message naming the request, so a
 * test never waits on it.
 */
export class FakeProviderServer {
  readonly requests: RecordedHttpRequest[] = [];
  readonly #server: Server;
  readonly #replies: FakeReply[] = [];
  #fallback: FakeReply | undefined;
  #url = "";

  private constructor() {
    this.#server = createServer((req, res) => {
      void this.#handle(req, res);
    });
  }

  static async start(): Promise<FakeProviderServer> {
    const fake = new FakeProviderServer();
    await new Promise<void>((resolve, reject) => {
      fake.#server.once("error", reject);
      fake.#server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = fake.#server.address() as AddressInfo;
    fake.#url = `http://127.0.0.1:${port}`;
    return fake;
  }

  /** The server's origin, such as http://127.0.0.1:41234 (no trailing slash). */
  get url(): string {
    return this.#url;
  }

  /** Queues replies, answered in order, one per request. */
  enqueue(...replies: readonly FakeReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  /** Answers every request with `reply` once the queue is empty (a benchmark's endless stream, say). */
  always(reply: FakeReply): this {
    this.#fallback = reply;
    return this;
  }

  /** How many queued replies no request has taken yet. */
  get pending(): number {
    return this.#replies.length;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const record: MutableRecord = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: parseJson(text),
      aborted: false,
    };
    this.requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.aborted = true;
    });
    const reply = this.#replies.shift() ?? this.#fallback;
    if (!reply) {
      sendJson(res, 599, {
        error: { message: `fake server: no scripted reply for ${record.method} ${record.path}` },
      });
      return;
    }
    if (reply.kind === "drop") {
      req.socket.destroy();
      return;
    }
    if (reply.kind === "json") {
      sendJson(res, reply.status, reply.body, reply.headers);
      return;
    }
    await streamEvents(res, reply);
  }
}

async function streamEvents(
  res: ServerResponse,
  reply: Extract<FakeReply, { kind: "stream" }>,
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...reply.headers,
  });
  res.flushHeaders();
  const limit = reply.hangAfter ?? reply.dropAfter ?? reply.events.length;
  const events = reply.events.slice(0, limit);
  if (reply.chunkBytes !== undefined) {
    const body = Buffer.from(events.map(encodeSse).join(""), "utf8");
    for (let at = 0; at < body.length && !res.destroyed; at += reply.chunkBytes) {
      res.write(body.subarray(at, at + reply.chunkBytes));
      await nextTurn();
    }
  } else if (reply.hangAfter === undefined && reply.dropAfter === undefined) {
    res.write(encodedBody(reply.events));
  } else {
    for (const event of events) {
      if (res.destroyed) return;
      res.write(encodeSse(event));
    }
  }
  if (reply.dropAfter !== undefined) {
    await nextTurn();
    res.socket?.destroy();
    return;
  }
  // Hanging: the response stays open until the client aborts (or the server closes).
  if (reply.hangAfter !== undefined) return;
  res.end();
}

const encoded = new WeakMap<readonly SseEvent[], Buffer>();

/** A whole stream's bytes, encoded once per event list (a benchmark serves the same one many times). */
function encodedBody(events: readonly SseEvent[]): Buffer {
  let body = encoded.get(events);
  if (!body) {
    body = Buffer.from(events.map(encodeSse).join(""), "utf8");
    encoded.set(events, body);
  }
  return body;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
