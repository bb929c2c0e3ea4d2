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
  token = new URL(server.url).searchParams.get("token") ?? "";
});
afterAll(async () => {
  await server?.close();
  await store?.close();
  await cleanup?.();
});

const ROUTES = ["/", "/s/jsonl/s1", "/api/s/jsonl/s1/data", "/api/s/jsonl/s1/events"];

describe("with the right token and host", () => {
  it.each(ROUTES)("%s is served", async (path) => {
    const reply = await get(server.port, path, { host, "x-bridle-token": token });
    expect(reply.status).toBe(200);
    expect(reply.headers["cache-control"]).toBe("no-store");
  });

  it("the printed URL sets a cookie for this port and drops the token from the address", async () => {
    const reply = await get(server.port, `/?token=${token}`, { host });
    expect(reply.status).toBe(303);
    expect(reply.headers.location).toBe("/");
    const cookie = String(reply.headers["set-cookie"]);
    expect(cookie).toContain(`bridle_view_${server.port}=${token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const next = await get(server.port, "/", { host, cookie: cookie.split(";")[0] ?? "" });
    expect(next.status).toBe(200);
    expect(next.body).toContain('"id":"s1"');
  });

  it("binds loopback only", async () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal);
    if (outside) {
      await expect(
        get(server.port, "/", { host, "x-bridle-token": token }, "GET", outside.address),
      ).rejects.toThrow(/ECONNREFUSED/);
    }
  });
});

describe("refused", () => {
  const other = () => server.port + 1;
  const cases: [string, () => Record<string, string>, string?][] = [
    ["no token", () => ({ host })],
    ["a wrong token in the header", () => ({ host, "x-bridle-token": `${token}x` })],
    ["a token of another length", () => ({ host, "x-bridle-token": token.slice(1) })],
    ["a wrong cookie", () => ({ host, cookie: `bridle_view_${server.port}=nope` })],
    ["the cookie of another port", () => ({ host, cookie: `bridle_view_${other()}=${token}` })],
    ["a foreign origin", () => ({ host, "x-bridle-token": token, origin: "http://evil.example" })],
    [
      "another loopback port as origin",
      () => ({ host, "x-bridle-token": token, origin: `http://127.0.0.1:${other()}` }),
    ],
    [
      "an https origin",
      () => ({ host, "x-bridle-token": token, origin: `https://127.0.0.1:${server.port}` }),
    ],
    ["origin null (a sandboxed frame, a file)", () => ({ host, "x-bridle-token": token, origin: "null" })],
    ["a cross-site fetch", () => ({ host, "x-bridle-token": token, "sec-fetch-site": "cross-site" })],
    [
      "a same-site fetch from another port",
      () => ({ host, "x-bridle-token": token, "sec-fetch-site": "same-site" }),
    ],
    ["a rebound host name", () => ({ host: `evil.example:${server.port}`, "x-bridle-token": token })],
    [
      "a host name with the right prefix",
      () => ({ host: `127.0.0.1.evil.example:${server.port}`, "x-bridle-token": token }),
    ],
    ["the right host on another port", () => ({ host: `127.0.0.1:${other()}`, "x-bridle-token": token })],
    ["no port in the host", () => ({ host: "127.0.0.1", "x-bridle-token": token })],
    ["no host at all", () => ({ "x-bridle-token": token })],
  ];
  for (const [name, headers] of cases) {
    it.each(ROUTES)(`${name}: %s`, async (path) => {
      const reply = await get(server.port, path, headers());
      // Node itself answers 400 to an HTTP/1.1 request with no Host; everything else is the guard's 403.
      expect(reply.status).toBe(name === "no host at all" ? 400 : 403);
      expect(reply.body).not.toContain("s1");
    });
  }

  it.each([
    ["a token in the URL with a foreign origin", { origin: "http://evil.example" }],
    ["a token in the URL for a rebound host", { host: "evil.example" }],
  ])("%s", async (_, extra) => {
    const reply = await get(server.port, `/?token=${token}`, { host, ...extra });
    expect(reply.status).toBe(403);
    expect(reply.headers["set-cookie"]).toBeUndefined();
  });

  it.each(["POST", "PUT", "DELETE", "OPTIONS"])("%s", async (method) => {
    const reply = await get(server.port, "/", { host, "x-bridle-token": token }, method);
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
    const reply = await get(server.port, path, { host, "x-bridle-token": token });
    expect(reply.status).toBe(404);
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
