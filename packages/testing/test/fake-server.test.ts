import { describe, expect, it } from "vitest";
import { FakeProviderServer, openaiChatFormat } from "../src/index.js";

async function readAll(response: Response): Promise<string> {
  return await response.text();
}

describe("FakeProviderServer", () => {
  it("answers queued replies in order and records each request's JSON body", async () => {
    const server = await FakeProviderServer.start();
    try {
      server.enqueue(
        {
          kind: "json",
          status: 429,
          body: { error: { message: "slow down" } },
          headers: { "retry-after": "2" },
        },
        { kind: "stream", events: [{ event: "ping", data: "{}" }, { data: "line one\nline two" }] },
      );
      const first = await fetch(`${server.url}/v1/x`, { method: "POST", body: JSON.stringify({ a: 1 }) });
      expect(first.status).toBe(429);
      expect(first.headers.get("retry-after")).toBe("2");
      expect(await first.json()).toEqual({ error: { message: "slow down" } });
      const second = await fetch(`${server.url}/v1/y`, { method: "POST", body: "not json" });
      expect(second.headers.get("content-type")).toBe("text/event-stream");
      expect(await readAll(second)).toBe("event: ping\ndata: {}\n\ndata: line one\ndata: line two\n\n");
      expect(server.requests.map((request) => [request.path, request.body])).toEqual([
        ["/v1/x", { a: 1 }],
        ["/v1/y", undefined],
      ]);
    } finally {
      await server.close();
    }
  });

  it("answers 599 naming the request when nothing is queued, or the `always` reply", async () => {
    const server = await FakeProviderServer.start();
    try {
      const none = await fetch(`${server.url}/v1/messages`, { method: "POST" });
      expect(none.status).toBe(599);
      expect(await none.text()).toContain("POST /v1/messages");
      server.always({ kind: "json", status: 200, body: { ok: true } });
      for (let i = 0; i < 3; i++) expect((await fetch(server.url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("cuts the body at arbitrary byte offsets without changing it", async () => {
    const server = await FakeProviderServer.start();
    try {
      const events = openaiChatFormat.events({ text: "héllo wörld 🙂 — done", chunkSize: 3 });
      server.enqueue({ kind: "stream", events }, { kind: "stream", events, chunkBytes: 3 });
      const whole = await readAll(await fetch(server.url));
      const sliced = await readAll(await fetch(server.url));
      expect(sliced).toBe(whole);
      expect(whole.endsWith("data: [DONE]\n\n")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("drops a connection, and records a client that goes away from a hanging stream", async () => {
    const server = await FakeProviderServer.start();
    try {
      server.enqueue({ kind: "drop" }, { kind: "stream", events: [{ data: "{}" }], hangAfter: 1 });
      await expect(fetch(server.url)).rejects.toThrow();
      const controller = new AbortController();
      const response = await fetch(server.url, { signal: controller.signal });
      const reader = response.body?.getReader();
      await reader?.read();
      controller.abort();
      await expect(async () => await reader?.read()).rejects.toThrow();
      await expect.poll(() => server.requests[1]?.aborted, { timeout: 60_000 }).toBe(true);
    } finally {
      await server.close();
    }
  });
});
