import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
  readonly origin: string;
  /** host:port, as an allowlist entry. */
  readonly host: string;
  readonly paths: string[];
  /** Bytes the server managed to write for /big before the client went away. */
  bigBytesWritten: number;
  close(): Promise<void>;
}

type Route = (req: IncomingMessage, res: ServerResponse, server: LoopbackServer) => void;

/** A loopback HTTP server with a few routes that exercise the tool's paths. */
export async function startServer(routes: Record<string, Route> = {}): Promise<LoopbackServer> {
  const all: Record<string, Route> = { ...defaultRoutes, ...routes };
  let state: LoopbackServer | undefined;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    state?.paths.push(path);
    const route = all[path];
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`no route ${path}`);
      return;
    }
    route(req, res, state as LoopbackServer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state = {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    paths: [],
    bigBytesWritten: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return state;
}

const defaultRoutes: Record<string, Route> = {
  "/text": (_req, res) =>
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("hello, world ✓\n"),
  "/page": (_req, res) =>
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end("<html><head><title>x</title></head><body><h2>Title</h2><p>Body &amp; more</p></body></html>"),
  "/json": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'),
  "/latin1": (_req, res) =>
    res
      .writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" })
      .end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
  "/png": (_req, res) =>
    res
      .writeHead(200, { "content-type": "image/png" })
      .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1])),
  "/empty": (_req, res) => res.writeHead(204).end(),
  "/teapot": (_req, res) => res.writeHead(418, { "content-type": "text/plain" }).end("short and stout"),
  "/headers": (req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers)),
  // Never answers: the call runs until it is aborted or times out.
  "/hang": () => {},
  // Endless: writes 64 KiB chunks until the client stops reading and goes away.
  "/big": (_req, res, server) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const chunk = Buffer.alloc(64 * 1024, "a");
    const pump = () => {
      while (!res.destroyed && server.bigBytesWritten < 64 * 1024 * 1024) {
        server.bigBytesWritten += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  },
  "/redirect": (_req, res) => res.writeHead(302, { location: "/text" }).end(),
  "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
};
