// Which stored token goes to the server: a Bearer token from an earlier run does; a DPoP-bound one, whose
// key died with the process that made it, does not.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type McpOAuthRecord, McpServers } from "../src/index.js";

const servers: Server[] = [];
const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((mcp) => mcp.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** What the server saw in each request's Authorization header; it refuses them all. */
async function presentedTokens(record: McpOAuthRecord): Promise<string[]> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    if (req.url === "/mcp") seen.push(req.headers.authorization ?? "(none)");
    res.writeHead(req.url === "/mcp" ? 401 : 404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const mcp = new McpServers(
    { mcpServers: { kept: { type: "http", url } } },
    {
      connectTimeoutMs: 10_000,
      resources: false,
      oauth: {
        store: { load: () => structuredClone(record), save: () => {} },
        authorize: async () => {
          throw new Error("no user here");
        },
      },
    },
  );
  open.push(mcp);
  const { failures } = await mcp.discover();
  expect(failures).toHaveLength(1);
  return seen;
}

describe("stored OAuth tokens", () => {
  it("presents a Bearer token from an earlier run", async () => {
    const seen = await presentedTokens({ tokens: { access_token: "kept-bearer", token_type: "Bearer" } });
    expect(seen).toContain("Bearer kept-bearer");
  });

  it("leaves out a DPoP-bound token whose key this process does not hold", async () => {
    const seen = await presentedTokens({ tokens: { access_token: "old-dpop", token_type: "DPoP" } });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((header) => header.includes("old-dpop"))).toEqual([]);
  });
});
