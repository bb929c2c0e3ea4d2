// `bridle view`: a read-only server on 127.0.0.1 that lists the sessions of the stores it is given and
// shows any of them in the same page an export produces, following a running session over server-sent
// events. It serves no files: every path is this start's token and then a route whose parts must be a
// configured store's name and a session id (letters, digits, `-`, `_`), so nothing outside the stores'
// sessions can be named.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BridleError, type SessionStore } from "@bridle/core";
import { createGuard, type Guard } from "./guard.js";
import { contentSecurityPolicy, renderPage } from "./html.js";
import { loadProjection } from "./load.js";
import type { ProjectionOptions } from "./project.js";
import type { ListedSession } from "./view.js";

export interface NamedStore {
  /** Shown in the list and used in URLs: letters, digits, `-` and `_`. */
  readonly name: string;
  readonly store: SessionStore;
}

export interface ViewServerOptions extends ProjectionOptions {
  readonly stores: readonly NamedStore[];
  /** Port on 127.0.0.1 (default 0: one the system picks). */
  readonly port?: number;
  /** How often a followed session is checked for new events, in milliseconds (default 500). */
  readonly pollMs?: number;
}

export interface ViewServer {
  /**
   * The address to open: `http://127.0.0.1:PORT/<token>/`. Every page and request of this start is under
   * that path; the token is in no cookie, so no other server on 127.0.0.1 is ever sent it.
   */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  close(): Promise<void>;
}

const NAME = /^[A-Za-z0-9_-]{1,128}$/;

const HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
};

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    ...HEADERS,
    "content-type": type,
    "content-security-policy": contentSecurityPolicy(true),
  });
  response.end(body);
}

type Route =
  | { readonly kind: "list" }
  | {
      readonly kind: "session" | "data" | "events";
      readonly store: NamedStore;
      readonly id: string;
    };

function route(pathname: string, stores: ReadonlyMap<string, NamedStore>): Route | undefined {
  if (pathname === "/") return { kind: "list" };
  const parts = pathname.split("/").slice(1);
  const api = parts[0] === "api";
  const [s, storeName, id, what, ...rest] = api ? parts.slice(1) : parts;
  if (s !== "s" || rest.length > 0 || !storeName || !id || !NAME.test(storeName) || !NAME.test(id)) {
    return undefined;
  }
  const store = stores.get(storeName);
  if (!store) return undefined;
  if (!api) return what === undefined ? { kind: "session", store, id } : undefined;
  if (what === "data" || what === "events") return { kind: what, store, id };
  return undefined;
}

/** Starts the viewer server on 127.0.0.1. Store names must be unique letters, digits, `-` and `_`. */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const stores = new Map<string, NamedStore>();
  for (const named of options.stores) {
    if (!NAME.test(named.name) || stores.has(named.name)) {
      throw new BridleError(
        "invalid_argument",
        `store name "${named.name}" must be unique: letters, digits, - or _`,
      );
    }
    stores.set(named.name, named);
  }
  const pollMs = options.pollMs ?? 500;
  const streams = new Set<ServerResponse>();
  let guard: Guard | undefined;

  const listPage = async (base: string): Promise<string> => {
    const sessions: ListedSession[] = [];
    for (const { name, store } of stores.values()) {
      for (const s of await store.list()) {
        sessions.push({
          store: name,
          id: s.id,
          ...(s.title ? { title: s.title } : {}),
          updatedAt: s.updatedAt,
          events: s.lastSeq + 1,
          ...(s.parent ? { parent: s.parent } : {}),
          href: `${base}/s/${name}/${s.id}`,
        });
      }
    }
    sessions.sort((a, b) => b.updatedAt - a.updatedAt);
    return renderPage(
      { page: "list", sessions, stores: [...stores.keys()] },
      {},
      {
        title: "Bridle sessions",
        served: true,
      },
    );
  };

  const follow = (request: IncomingMessage, response: ServerResponse, store: SessionStore, id: string) => {
    response.writeHead(200, { ...HEADERS, "content-type": "text/event-stream", connection: "keep-alive" });
    streams.add(response);
    let last: number | undefined;
    let writing: boolean | undefined;
    let checking = false;
    const check = async () => {
      if (checking) return;
      checking = true;
      try {
        const info = await store.get(id);
        if (info && info.lastSeq !== last) {
          last = info.lastSeq;
          response.write(`event: seq\ndata: ${info.lastSeq}\n\n`);
        }
        // The session's process stopped (a crash writes no event) or started: the page asks again.
        const now = await store.writing?.(id);
        if (writing !== undefined && now !== writing) response.write(`event: state\ndata: ${now}\n\n`);
        writing = now;
      } catch {
        // The store is busy or closing: the next tick asks again.
      } finally {
        checking = false;
      }
    };
    void check();
    const timer = setInterval(() => void check(), pollMs);
    const stop = () => {
      clearInterval(timer);
      streams.delete(response);
    };
    request.on("close", stop);
    response.on("close", stop);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (!guard) {
      send(response, 403, "text/plain; charset=utf-8", "refused (host)\n");
      return;
    }
    const admitted = guard.check(request, url);
    if (admitted.refused) {
      const status = admitted.refused === "method" ? 405 : 403;
      send(response, status, "text/plain; charset=utf-8", `refused (${admitted.refused})\n`);
      return;
    }
    if (admitted.slash) {
      // The address without its last slash: the list lives at `/<token>/`.
      response.writeHead(308, { ...HEADERS, location: `${guard.base}/` });
      response.end();
      return;
    }
    const target = route(admitted.path, stores);
    if (!target) {
      send(response, 404, "text/plain; charset=utf-8", "not found\n");
      return;
    }
    if (target.kind === "list") {
      send(response, 200, "text/html; charset=utf-8", await listPage(guard.base));
      return;
    }
    const { store, id } = target;
    if (!(await store.store.get(id))) {
      send(response, 404, "text/plain; charset=utf-8", "not found\n");
      return;
    }
    if (target.kind === "events") {
      follow(request, response, store.store, id);
      return;
    }
    const { view, bodies } = await loadProjection(store.store, id, options);
    if (target.kind === "data") send(response, 200, "application/json", JSON.stringify({ view, bodies }));
    else {
      const api = `${guard.base}/api/s/${store.name}/${id}`;
      const live = {
        dataUrl: `${api}/data`,
        eventsUrl: `${api}/events`,
        sessionBase: `${guard.base}/s/${store.name}/`,
      };
      const title = `${view.session.title ?? id} · Bridle session`;
      send(
        response,
        200,
        "text/html; charset=utf-8",
        renderPage({ page: "session", view, live }, { [id]: bodies }, { title, served: true }),
      );
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.end();
      else send(response, 500, "text/plain; charset=utf-8", `viewer error: ${(error as Error).message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  guard = createGuard(port);
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${guard.base}/`,
    origin,
    port,
    close: async () => {
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
