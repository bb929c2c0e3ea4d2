// A 2025-03-26 server that is its own authorization server, with no protected resource metadata, whose
// metadata at the origin's root names an issuer: a path of the same origin is accepted, another origin not.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";

interface LegacyServer {
  readonly url: string;
  readonly origin: string;
  readonly requests: string[];
}

const servers: Server[] = [];
const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((mcp) => mcp.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function legacyServer(issuer: (origin: string) => string): Promise<LegacyServer> {
  const requests: string[] = [];
  let origin = "";
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url === "/.well-known/oauth-authorization-server") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          issuer: issuer(origin),
          authorization_endpoint: `${origin}/oauth/authorize`,
          token_endpoint: `${origin}/oauth/token`,
          registration_endpoint: `${origin}/oauth/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
        }),
      );
      return;
    }
    if (req.method === "POST" && req.url === "/oauth/register") {
      res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ client_id: "legacy-client", redirect_uris: ["http://127.0.0.1/callback"] }));
      return;
    }
    if (req.url === "/mcp") {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
      return;
    }
    res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${origin}/mcp`, origin, requests };
}

function connect(server: LegacyServer, asked: URL[]): McpServers {
  const sessions = new Map<string, object>();
  const mcp = new McpServers(
    { mcpServers: { legacy: { type: "http", url: server.url } } },
    {
      connectTimeoutMs: 10_000,
      resources: false,
      oauth: {
        authorize: async (_server, authorizationUrl) => {
          asked.push(authorizationUrl);
          throw new Error("the user closed the page");
        },
        store: {
          load: (name, url) => structuredClone(sessions.get(`${name} ${url}`) ?? {}),
          save: (name, url, record) => sessions.set(`${name} ${url}`, structuredClone(record)),
        },
      },
    },
  );
  open.push(mcp);
  return mcp;
}

describe("a 2025-03-26 server that is its own authorization server", () => {
  it("may name a path of its own origin as the issuer: the sign-in goes ahead there", async () => {
    const server = await legacyServer((origin) => `${origin}/oauth`);
    const asked: URL[] = [];
    const { failures } = await connect(server, asked).discover();
    expect(asked.map((url) => `${url.origin}${url.pathname}`)).toEqual([`${server.origin}/oauth/authorize`]);
    expect(server.requests).toContain("POST /oauth/register");
    // The sign-in was refused by the user, which is what fails the connection, not the metadata.
    expect(failures.map((failure) => failure.message).join("\n")).toMatch(/closed the page/);
    expect(failures.map((failure) => failure.message).join("\n")).not.toMatch(/Issuer mismatch/);
  });

  it("may not name another origin: nothing is registered or authorized, and SSE is not tried", async () => {
    const server = await legacyServer(() => "https://elsewhere.example/");
    const asked: URL[] = [];
    const { failures } = await connect(server, asked).discover();
    expect(asked).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toMatch(/Issuer mismatch/);
    expect(server.requests).not.toContain("POST /oauth/register");
    expect(server.requests.filter((request) => request.startsWith("GET /mcp"))).toEqual([]);
  });
});
