import { type AnyTool, Harness, type ToolResultMessage } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { describeToolConformance } from "@bridle/testing/vitest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchTool, type FetchDetails } from "../src/index.js";
import { type LoopbackServer, startServer } from "./loopback-server.js";

let server: LoopbackServer;
let other: LoopbackServer;

beforeAll(async () => {
  server = await startServer();
  other = await startServer({
    "/bounce": (_req, res) => res.writeHead(301, { location: `${server.origin}/text` }).end(),
  });
});
afterAll(async () => {
  await server.close();
  await other.close();
});

describeToolConformance("fetch", {
  create: () => createFetchTool({ allowedHosts: [server.host] }),
  validArgs: () => ({ url: `${server.origin}/text` }),
  slowArgs: () => ({ url: `${server.origin}/hang` }),
  invalidArgs: () => [
    { url: `${server.origin}/text`, max_bytes: 0 },
    { url: `${server.origin}/text`, max_bytes: 10_000_000 },
  ],
});

/** Runs the given calls through a harness and returns their results in order. */
async function callTool(tool: AnyTool, ...calls: Record<string, unknown>[]): Promise<ToolResultMessage[]> {
  const { dir, cleanup } = await tempWorkspace();
  try {
    const model = new ScriptedModel([
      { toolCalls: calls.map((args, i) => ({ id: `c${i}`, name: "fetch", arguments: args })) },
      { text: "done" },
    ]);
    const result = await new Harness({ model, tools: [tool], workspace: dir }).run({ prompt: "fetch" });
    const results = result.messages.filter((m): m is ToolResultMessage => m.role === "tool");
    return calls.map((_, i) => results.find((r) => r.toolCallId === `c${i}`) as ToolResultMessage);
  } finally {
    await cleanup();
  }
}

const text = (result: ToolResultMessage | undefined) =>
  (result?.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
const details = (result: ToolResultMessage | undefined) => result?.details as FetchDetails;

describe("fetch", () => {
  it("returns the status, content type and body of an allowed URL", async () => {
    const [plain, json] = await callTool(
      createFetchTool({ allowedHosts: [server.host] }),
      { url: `${server.origin}/text` },
      { url: `${server.origin}/json` },
    );
    expect(text(plain)).toBe("HTTP 200 OK\ncontent-type: text/plain; charset=utf-8\n\nhello, world ✓\n");
    expect(details(plain)).toMatchObject({ status: 200, truncated: false, bytes: 17, redirects: [] });
    expect(text(json)).toContain('{"ok":true}');
  });

  it("refuses a host that is not allowed before connecting", async () => {
    const before = other.paths.length;
    const [result] = await callTool(createFetchTool({ allowedHosts: [server.host] }), {
      url: `${other.origin}/text`,
    });
    expect(result?.errorKind).toBe("Denied");
    expect(text(result)).toContain(`${other.host} is not an allowed host`);
    expect(other.paths.length).toBe(before);
  });

  it("checks every redirect against the allowlist", async () => {
    const [followed, escaped] = await callTool(
      createFetchTool({ allowedHosts: [server.host] }),
      { url: `${server.origin}/redirect` },
      { url: `${server.origin}/text` },
    );
    expect(details(followed)).toMatchObject({ status: 200, finalUrl: `${server.origin}/text` });
    expect(text(escaped)).toContain("hello");

    // other → server: allowed only when both are listed.
    const [denied] = await callTool(createFetchTool({ allowedHosts: [other.host] }), {
      url: `${other.origin}/bounce`,
    });
    expect(denied?.errorKind).toBe("Denied");
    expect(text(denied)).toContain("redirected from");
    const [allowed] = await callTool(createFetchTool({ allowedHosts: [other.host, server.host] }), {
      url: `${other.origin}/bounce`,
    });
    expect(details(allowed)).toMatchObject({ status: 200, redirects: [`${server.origin}/text`] });
  });

  it("stops after maxRedirects", async () => {
    const [result] = await callTool(createFetchTool({ allowedHosts: [server.host], maxRedirects: 3 }), {
      url: `${server.origin}/loop`,
    });
    expect(result?.errorKind).toBe("ToolError");
    expect(text(result)).toContain("more than 3 redirects");
  });

  it("reads no more than the cap and lets go of the connection", async () => {
    server.bigBytesWritten = 0;
    const [capped, asked] = await callTool(
      createFetchTool({ allowedHosts: [server.host], maxBytes: 20_000 }),
      { url: `${server.origin}/big` },
      { url: `${server.origin}/big`, max_bytes: 10 },
    );
    expect(details(capped)).toMatchObject({ bytes: 20_000, truncated: true });
    expect(text(capped)).toContain("[truncated: only the first 20000 bytes were read]");
    expect(text(asked)).toContain(`${"a".repeat(10)}\n[truncated`);
    // The server stopped well short of its 64 MiB: the client went away instead of draining the body.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.bigBytesWritten).toBeLessThan(16 * 1024 * 1024);
  });

  it("describes binary bodies instead of dumping them, and decodes the declared charset", async () => {
    const [png, latin1, empty] = await callTool(
      createFetchTool({ allowedHosts: [server.host] }),
      { url: `${server.origin}/png` },
      { url: `${server.origin}/latin1` },
      { url: `${server.origin}/empty` },
    );
    expect(text(png)).toContain("(binary body, 8 bytes, not shown)");
    expect(text(latin1)).toContain("café");
    expect(text(empty)).toContain("HTTP 204");
    expect(text(empty)).toContain("(empty body)");
  });

  it("shows HTML pages as readable text unless raw is asked for", async () => {
    const [readable, raw] = await callTool(
      createFetchTool({ allowedHosts: [server.host] }),
      { url: `${server.origin}/page` },
      { url: `${server.origin}/page`, raw: true },
    );
    expect(text(readable)).toBe(
      "HTTP 200 OK\ncontent-type: text/html; charset=utf-8\n(HTML shown as readable text; raw: true for the source)\n\n## Title\n\nBody & more",
    );
    expect(text(raw)).toContain("<h2>Title</h2>");
  });

  it("marks HTTP errors as failed results the model can read", async () => {
    const [result] = await callTool(createFetchTool({ allowedHosts: [server.host] }), {
      url: `${server.origin}/teapot`,
    });
    expect(result?.isError).toBe(true);
    expect(text(result)).toContain("HTTP 418");
    expect(text(result)).toContain("short and stout");
  });

  it("refuses other schemes, relative URLs and credentials as InvalidInput", async () => {
    const results = await callTool(
      createFetchTool({ allowedHosts: [server.host] }),
      { url: "file:///etc/passwd" },
      { url: "/text" },
      { url: `http://user:secret@${server.host}/text` },
    );
    expect(results.map((result) => result?.errorKind)).toEqual([
      "InvalidInput",
      "InvalidInput",
      "InvalidInput",
    ]);
    expect(server.paths).not.toContain("/etc/passwd");
  });

  it("reports a refused connection as a bounded ToolError", async () => {
    const closed = await startServer();
    const origin = closed.origin;
    const host = closed.host;
    await closed.close();
    const [result] = await callTool(createFetchTool({ allowedHosts: [host] }), { url: `${origin}/text` });
    expect(result?.errorKind).toBe("ToolError");
    expect(text(result)).toContain("ECONNREFUSED");
  });

  it("sends the configured headers, never the model's", async () => {
    const [result] = await callTool(
      createFetchTool({ allowedHosts: [server.host], headers: { "user-agent": "bridle-test" } }),
      {
        url: `${server.origin}/headers`,
      },
    );
    expect(text(result)).toContain('"user-agent":"bridle-test"');
  });

  it("rejects bad options when it is created", () => {
    expect(() => createFetchTool({ allowedHosts: ["http://example.com/path"] })).toThrow(RangeError);
    expect(() => createFetchTool({ allowedHosts: [], maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => createFetchTool({ allowedHosts: [], maxRedirects: -1 })).toThrow(/maxRedirects/);
  });
});
