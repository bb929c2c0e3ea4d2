// Who may talk to the viewer server. It binds loopback only, but any web page the user opens can make the
// browser send requests to loopback, and a DNS-rebound name can point at it too. So every request must
// name this server as its Host, come from no other origin, and carry the token of this start.
//
// The token is the first segment of every path (`/<token>/s/…`), never a cookie: a browser scopes a
// cookie to the host, not the port, so a cookie for 127.0.0.1 would be sent to every other server on
// 127.0.0.1 (another user's, a dev server's) the browser visits. A path is sent to this origin only, and
// the pages send no referrer, so the token reaches nothing but this server.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export type Refusal = "method" | "host" | "origin" | "token";

export type Admission =
  | { readonly refused: Refusal }
  /** The path after the token (`/` at least), or `slash` when the path is the token alone. */
  | { readonly refused?: undefined; readonly path: string; readonly slash?: boolean };

export interface Guard {
  /** The path prefix every page and request of this start carries: `/<token>`. */
  readonly base: string;
  /** Whether the request may be served, and the route it names once the token is taken off. */
  check(request: IncomingMessage, url: URL): Admission;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function createGuard(port: number): Guard {
  const token = randomBytes(24).toString("base64url");
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origins = new Set([...hosts].map((host) => `http://${host}`));
  return {
    base: `/${token}`,
    check(request, url) {
      if (request.method !== "GET" && request.method !== "HEAD") return { refused: "method" };
      if (!hosts.has(request.headers.host ?? "")) return { refused: "host" };
      const origin = request.headers.origin;
      if (origin !== undefined && !origins.has(origin)) return { refused: "origin" };
      const site = request.headers["sec-fetch-site"];
      if (site !== undefined && site !== "same-origin" && site !== "none") return { refused: "origin" };
      const slash = url.pathname.indexOf("/", 1);
      const given = url.pathname.slice(1, slash === -1 ? undefined : slash);
      if (!same(given, token)) return { refused: "token" };
      return slash === -1 ? { path: "/", slash: true } : { path: url.pathname.slice(slash) };
    },
  };
}
