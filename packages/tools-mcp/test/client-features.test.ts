// What servers ask of the client: the workspace as the one root, user input (declined when nobody can
// answer), log lines reaching the run, prompts, and list changes.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type McpElicitation, McpServers, type McpServersOptions } from "../src/index.js";
import { byName, callTool, EVERYTHING_SERVER, TOY_SERVER, textOf } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function toy(options: McpServersOptions = {}): McpServers {
  const mcp = new McpServers(
    { mcpServers: { toy: { command: process.execPath, args: [TOY_SERVER, `--tag=${randomUUID()}`] } } },
    options,
  );
  cleanup.push(() => mcp.close());
  return mcp;
}

describe("client features", () => {
  it("offers the workspace as the one root", async () => {
    const workspace = await mkdtemp(join(tmpdir(), "bridle-mcp-root-"));
    cleanup.push(() => rm(workspace, { recursive: true, force: true }));
    const tools = await toy({ workspaceFolder: workspace }).tools();
    const roots = JSON.parse(textOf(await callTool(byName(tools, "mcp_toy_roots"), {})));
    expect(roots).toEqual([{ uri: pathToFileURL(workspace).href, name: workspace.split("/").at(-1) }]);
  });

  it("declines elicitation at once when nobody can answer", async () => {
    const tools = await toy().tools();
    const answer = JSON.parse(textOf(await callTool(byName(tools, "mcp_toy_elicit_name"), {})));
    expect(answer).toEqual({ action: "decline" });
  });

  it("asks onElicitation when given, and fills the schema's defaults into an accepted form (SEP-1034)", async () => {
    const asked: McpElicitation[] = [];
    const tools = await toy({
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept", content: { name: "Ada" } };
      },
    }).tools();
    const answer = JSON.parse(textOf(await callTool(byName(tools, "mcp_toy_elicit_name"), {})));
    expect(answer).toEqual({ action: "accept", content: { name: "Ada", color: "blue" } });
    expect(asked).toMatchObject([{ server: "toy", message: "Your name?", mode: "form" }]);
  });

  it("does not time a call out while a person answers its server (the wait is not the server's silence)", async () => {
    const tools = await toy({
      // Three call timeouts pass before the answer comes. The timeout is long enough that a loaded machine's
      // slowness between the server's messages never reaches it (200 ms did, with two test runs side by side).
      callTimeoutMs: 3_000,
      onElicitation: async () => {
        await new Promise((resolve) => setTimeout(resolve, 9_000));
        return { action: "accept", content: { name: "Slow" } };
      },
    }).tools();
    const answer = JSON.parse(textOf(await callTool(byName(tools, "mcp_toy_elicit_name"), {})));
    expect(answer).toEqual({ action: "accept", content: { name: "Slow", color: "blue" } });
  });

  it("withdraws the question when the call waiting on the answer is aborted", async () => {
    let asked!: () => void;
    const askedNow = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let withdrawn = false;
    const tools = await toy({
      onElicitation: (_request, signal) =>
        new Promise((resolve) => {
          asked();
          signal.addEventListener("abort", () => {
            withdrawn = true;
            resolve({ action: "cancel" });
          });
        }),
    }).tools();
    const stop = new AbortController();
    const call = callTool(byName(tools, "mcp_toy_elicit_name"), {}, { signal: stop.signal });
    await askedNow;
    stop.abort(new Error("the user pressed Ctrl-C"));
    await expect(call).rejects.toMatchObject({ kind: "Cancelled" });
    expect(withdrawn).toBe(true);
  });

  it("passes log messages to onLog and, during a call, to its run as progress", async () => {
    const logs: unknown[] = [];
    const tools = await toy({ onLog: (server, message) => logs.push({ server, ...message }) }).tools();
    const progress: unknown[] = [];
    const output = await callTool(byName(tools, "mcp_toy_log"), {}, { onProgress: (p) => progress.push(p) });
    expect(textOf(output)).toBe("logged");
    const line = { level: "warning", logger: "toy", data: "disk almost full" };
    expect(logs).toEqual([{ server: "toy", ...line }]);
    expect(progress).toEqual([{ server: "toy", tool: "log", log: line }]);
  });

  it("lists prompts with their server, and fills one in", async () => {
    const mcp = toy();
    expect(await mcp.listPrompts()).toEqual([
      {
        server: "toy",
        name: "review",
        description: "Review a file",
        arguments: [{ name: "path", required: true }],
      },
    ]);
    const filled = await mcp.getPrompt("toy", "review", { path: "src/a.ts" });
    expect(filled.messages).toEqual([{ role: "user", content: { type: "text", text: "Review src/a.ts" } }]);
  });

  it("tells onListChanged when tools change, after refetching them", async () => {
    const changes: string[] = [];
    const mcp = toy({ onListChanged: (server, list) => changes.push(`${server}:${list}`) });
    const told = new Promise<void>((resolve) => mcp.onToolsChanged(() => resolve()));
    await callTool(byName(await mcp.tools(), "mcp_toy_add_tool"), {});
    await told;
    expect(changes).toEqual(["toy:tools"]);
  });

  it("offers sampling only with onSampling, which answers server-everything's request", async () => {
    const asked: unknown[] = [];
    const mcp = new McpServers(
      { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } },
      {
        onSampling: async (request) => {
          asked.push(request);
          return { role: "assistant", model: "scripted", content: { type: "text", text: "sampled answer" } };
        },
      },
    );
    cleanup.push(() => mcp.close());
    const tool = byName(await mcp.tools(), "mcp_everything_trigger-sampling-request");
    const output = textOf(await callTool(tool, { prompt: "say hi", maxTokens: 20 }));
    expect(output).toContain("sampled answer");
    expect(asked).toMatchObject([{ server: "everything", maxTokens: 20 }]);

    const without = new McpServers({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } },
    });
    cleanup.push(() => without.close());
    const names = (await without.tools()).map((t) => t.name);
    expect(names).not.toContain("mcp_everything_trigger-sampling-request");
  });

  it("server-everything sees the root and gets a declined elicitation", async () => {
    const mcp = new McpServers(
      { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } },
      { workspaceFolder: "/tmp" },
    );
    cleanup.push(() => mcp.close());
    const tools = await mcp.tools();
    const roots = textOf(await callTool(byName(tools, "mcp_everything_get-roots-list"), {}));
    expect(roots).toContain("URI: file:///tmp");
    const elicited = textOf(await callTool(byName(tools, "mcp_everything_trigger-elicitation-request"), {}));
    expect(elicited).toContain("declined");
    // URL mode reaches the same decision.
    const url = textOf(
      await callTool(byName(tools, "mcp_everything_trigger-url-elicitation"), {
        url: "https://example.test/connect",
        message: "Connect your account",
      }),
    );
    expect(url).toMatch(/decline/i);
    const prompts = (await mcp.listPrompts()).map((prompt) => prompt.name);
    expect(prompts).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt"]));
  });
});
