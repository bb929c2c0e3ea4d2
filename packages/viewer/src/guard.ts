// Who may talk to the viewer server. It binds loopback only, but any web page the user opens can make the
// browser send requests to loopback, and a DNS-rebound name can point at it too. So every request must
// name this server as its Host, come from no other origin, and carry the token of this start (from the
// URL the server printed, then a cookie scoped to this port).
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export type Refusal = "method" | "host" | "origin" | "token";

export interface Guard {
  readonly token: string;
  readonly cookieName: string;
  /** Why the request is refused, or undefined when it may be served. */
  check(request: IncomingMessage, url: URL): Refusal | undefined;
  /** The token the request carries in its URL (the printed link), when it is the right one. */
  tokenInQuery(url: URL): boolean;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function createGuard(port: number): Guard {
  const token = randomBytes(24).toString("base64url");
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origins = new Set([...hosts].map((host) => `http://${host}`));
  const cookieName = `bridle_view_${port}`;
  const tokenInQuery = (url: URL) => {
    const given = url.searchParams.get("token");
    return given !== null && same(given, token);
  };
  return {
    token,
    cookieName,
    tokenInQuery,
    check(request, url) {
      if (request.method !== "GET" && request.method !== "HEAD") return "method";
      if (!hosts.has(request.headers.host ?? "")) return "host";
      const origin = request.headers.origin;
      if (origin !== undefined && !origins.has(origin)) return "origin";
      const site = request.headers["sec-fetch-site"];
      if (site !== undefined && site !== "same-origin" && site !== "none") return "origin";
      const header = request.headers["x-bridle-token"];
      const given =
        (typeof header === "string" ? header : undefined) ?? cookie(request.headers.cookie, cookieName);
      if (given !== undefined && same(given, token)) return undefined;
      return tokenInQuery(url) ? undefined : "token";
    },
  };
}
