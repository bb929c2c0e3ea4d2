// What the viewer server refuses. Requests are made with node:http so that every header (Host, Origin,
// Cookie, Sec-Fetch-Site) and the raw path are exactly what an attacker would send.

import { mkdir, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type ViewServer } from "../src/index.js";

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = "GET",
  host = "127.0.0.1",
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method, headers, setHost: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        // An event stream never ends: its first bytes are enough.
        if (res.headers["content-type"] === "text/event-stream") res.destroy();
      });
      const done = () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
      res.on("end", done);
      res.on("close", done);
    });
    req.on("error", reject);
    req.end();
  });
}

let server: ViewServer;
let store: JsonlSessionStore;
let cleanup: () => Promise<void>;
let host: string;
let token: string;
/** `/<token>`: every route of this start is under it. */
let base: string;

beforeAll(async () => {
  const made = await tempWorkspace("bridle-viewer-security-");
  cleanup = made.cleanup;
  const dir = join(made.dir, "store");
  store = await JsonlSessionStore.open({ dir });
  await store.createSession({ id: "s1" });
  await store.append("s1", sampleRunEvents({ reply: "hello" }));
  // Files a traversal would be after: beside the session files and above the store.
  await mkdir(join(dir, "sessions"), { recursive: true });
  await writeFile(join(dir, "sessions", "secret.txt"), "TOPSECRET-IN-STORE");
  await writeFile(join(made.dir, "secret.txt"), "TOPSECRET-ABOVE");
  server = await startViewServer({ stores: [{ name: "jsonl", store }] });
  host = `127.0.0.1:${server.port}`;
  base = new URL(server.url).pathname.replace(/\/$/, "");
  token = base.slice(1);
});
afterAll(async () => {
  await server?.close();
  await store?.close();
  await cleanup?.();
});

const ROUTES = ["/", "/s/jsonl/s1", "/api/s/jsonl/s1/data", "/api/s/jsonl/s1/events"];

describe("with the token in the path and the right host", () => {
  it.each(ROUTES)("%s is served", async (path) => {
    const reply = await get(server.port, `${base}${path}`, { host });
    expect(reply.status).toBe(200);
    expect(reply.headers["cache-control"]).toBe("no-store");
    expect(reply.headers["set-cookie"]).toBeUndefined();
  });

  it("the printed URL is the list; its links keep the token in their paths; no cookie is set", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/${token}/`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const reply = await get(server.port, new URL(server.url).pathname, { host });
    expect(reply.status).toBe(200);
    expect(reply.headers["set-cookie"]).toBeUndefined();
    expect(reply.body).toContain(`"href":"/${token}/s/jsonl/s1"`);
    const session = await get(server.port, `${base}/s/jsonl/s1`, { host });
    expect(session.body).toContain(`"dataUrl":"/${token}/api/s/jsonl/s1/data"`);
    expect(session.body).toContain(`"eventsUrl":"/${token}/api/s/jsonl/s1/events"`);
    // The token alone, without the last slash, leads to the list.
    const bare = await get(server.port, base, { host });
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe(`${base}/`);
  });

  it("binds loopback only", async () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal);
    if (outside) {
      await expect(get(server.port, `${base}/`, { host }, "GET", outside.address)).rejects.toThrow(
        /ECONNREFUSED/,
      );
    }
  });
});

describe("refused", () => {
  const other = () => server.port + 1;
  // [name, path prefix, headers]: the prefix stands before each route.
  const cases: [string, () => string, () => Record<string, string>][] = [
    ["no token", () => "", () => ({ host })],
    ["a wrong token", () => `${base}x`, () => ({ host })],
    ["a token of another length", () => base.slice(0, -1), () => ({ host })],
    [
      "the token in a cookie, as an earlier version kept it",
      () => "",
      () => ({ host, cookie: `bridle_view_${server.port}=${token}` }),
    ],
    ["the token in a header only", () => "", () => ({ host, "x-bridle-token": token })],
    ["a foreign origin", () => base, () => ({ host, origin: "http://evil.example" })],
    ["another loopback port as origin", () => base, () => ({ host, origin: `http://127.0.0.1:${other()}` })],
    ["an https origin", () => base, () => ({ host, origin: `https://127.0.0.1:${server.port}` })],
    ["origin null (a sandboxed frame, a file)", () => base, () => ({ host, origin: "null" })],
    ["a cross-site fetch", () => base, () => ({ host, "sec-fetch-site": "cross-site" })],
    ["a same-site fetch from another port", () => base, () => ({ host, "sec-fetch-site": "same-site" })],
    ["a rebound host name", () => base, () => ({ host: `evil.example:${server.port}` })],
    [
      "a host name with the right prefix",
      () => base,
      () => ({ host: `127.0.0.1.evil.example:${server.port}` }),
    ],
    ["the right host on another port", () => base, () => ({ host: `127.0.0.1:${other()}` })],
    ["no port in the host", () => base, () => ({ host: "127.0.0.1" })],
    ["no host at all", () => base, () => ({})],
  ];
  for (const [name, prefix, headers] of cases) {
    it.each(ROUTES)(`${name}: %s`, async (path) => {
      const reply = await get(server.port, `${prefix()}${path}`, headers());
      // Node itself answers 400 to an HTTP/1.1 request with no Host; everything else is the guard's 403.
      expect(reply.status).toBe(name === "no host at all" ? 400 : 403);
      expect(reply.body).not.toContain("s1");
    });
  }

  it("the token in the query, as an earlier version printed it", async () => {
    const reply = await get(server.port, `/?token=${token}`, { host });
    expect(reply.status).toBe(403);
    expect(reply.headers["set-cookie"]).toBeUndefined();
  });

  it.each(["POST", "PUT", "DELETE", "OPTIONS"])("%s", async (method) => {
    const reply = await get(server.port, `${base}/`, { host }, method);
    expect(reply.status).toBe(405);
  });

  const TRAVERSALS = [
    "/../secret.txt",
    "/s/jsonl/../../secret.txt",
    "/s/jsonl/..%2F..%2Fsecret.txt",
    "/s/jsonl/%2e%2e/secret.txt",
    "/s/jsonl/secret.txt",
    "/s/jsonl/sessions%2Fsecret.txt",
    "/api/s/jsonl/s1/../../../secret.txt",
    "/api/s/jsonl/..%2fsessions%2fsecret.txt/data",
    "/api/s/jsonl/s1/data/extra",
    "/api/s/jsonl/s1/secret",
    "/api/s/jsonl/s1/view",
    "/api/s/jsonl/s1/bodies",
    "/s/jsonl/s1/",
    "/s/jsonl/S1%00",
    "/s/jsonl//s1",
    "//s/jsonl/s1",
    "/s/other-store/s1",
    "/s/jsonl/no-such-session",
    "/api/s/jsonl/no-such-session/events",
    "/s/JSONL/s1",
    "/s/jsonl/s1%5C..%5Csecret.txt",
    "/sessions/secret.txt",
    "/secret.txt",
    "/jsonl/sessions/s1.jsonl",
    "/favicon.ico",
  ];
  it.each(TRAVERSALS)("nothing outside the sessions: %s", async (path) => {
    const reply = await get(server.port, `${base}${path}`, { host });
    // A `..` that climbs over the token leaves a path without it: refused before any route is looked at.
    expect(reply.status).toBe(path.startsWith("/../") ? 403 : 404);
    expect(reply.body).not.toContain("TOPSECRET");
  });
});

it("a store name that could make a path is refused at start", async () => {
  for (const name of ["../x", "a/b", "", "x".repeat(200)]) {
    await expect(startViewServer({ stores: [{ name, store }] })).rejects.toMatchObject({
      code: "invalid_argument",
    });
  }
  await expect(
    startViewServer({
      stores: [
        { name: "a", store },
        { name: "a", store },
      ],
    }),
  ).rejects.toMatchObject({ code: "invalid_argument" });
});
