import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Workspace } from "@bridle/core";
import { afterAll, beforeAll, test } from "vitest";
import { createFetchTool } from "../src/index.js";

// What the tool costs over a bare fetch of the same loopback URL: the allowlist check, the manual
// redirect handling, the capped read and the rendering of the result.
const body = "x".repeat(64 * 1024);
let server: Server;
let origin = "";
let host = "";
let tool: ReturnType<typeof createFetchTool> | undefined;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  host = `127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// Long windows: the loopback round trip is noisy on a shared machine.
const options = { time: 3_000, warmupTime: 500 };

const context = () => ({
  signal: new AbortController().signal,
  workspace: new Workspace(process.cwd()),
  runId: "bench",
  toolCallId: "bench",
  progress: () => {},
});

test("GET 64 KiB over loopback", async ({ bench }) => {
  await bench("bare fetch + text()", async () => {
    const response = await fetch(`${origin}/page`);
    await response.text();
  }).run(options);

  await bench("fetch tool execute", async () => {
    tool ??= createFetchTool({ allowedHosts: [host] });
    await tool.execute({ url: `${origin}/page` }, context());
  }).run(options);
});
