import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  anthropicMessagesFormat,
  FakeProviderServer,
  openaiChatFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-cost-"));
  // The session store stays out of the workspace, so the run changes no file there.
  await mkdir(join(dir, "repo"));
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

const run = (model: string) => {
  server.enqueue({
    kind: "stream",
    events: anthropicMessagesFormat.events({
      text: "Hello.",
      usage: { inputTokens: 1_000_000, outputTokens: 100_000 },
    }),
  });
  return runCli(["run", "--provider", "anthropic", "--model", model, "say hello"], {
    cwd: join(dir, "repo"),
    env: {
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: anthropicMessagesFormat.baseUrl(server.url),
    },
  });
};

describe("the cost line", () => {
  it("prices a model from its own row", async () => {
    const result = await run("claude-sonnet-4-6");
    expect(result.code).toBe(0);
    // 1M input at $3 and 100k output at $15 per million.
    expect(result.stderr).toMatch(/done: .* · \$4\.5000/);
    expect(result.stderr).not.toContain("warning:");
  });

  it("marks a model with no row as unknown rather than pricing it as a neighbour", async () => {
    const result = await run("claude-opus-4-9");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'warning: anthropic/claude-opus-4-9 is not in bridle\'s model table: its context window, prices and capabilities are unknown; describe it in the "models" section of your config\n',
    );
    expect(result.stderr).toMatch(/^\[turn 1\]\n(?:.*\n)*? {2}1M in · 100k out · cost unknown\n/m);
    expect(result.stderr).toMatch(/done: .* · cost unknown: no price for claude-opus-4-9/);
    // claude-opus-4's $15/$75 would have made it $22.5.
    expect(result.stderr).not.toContain("$22.5");
  });

  it("shows the cached share of the input and prices it at the cache rates (Anthropic's stream)", async () => {
    // On the wire: input_tokens 100k, cache_read_input_tokens 800k, cache_creation_input_tokens 100k.
    server.enqueue({
      kind: "stream",
      events: anthropicMessagesFormat.events({
        text: "Hello.",
        usage: {
          inputTokens: 1_000_000,
          cacheReadTokens: 800_000,
          cacheWriteTokens: 100_000,
          outputTokens: 100_000,
        },
      }),
    });
    const result = await runCli(
      ["run", "--provider", "anthropic", "--model", "claude-sonnet-4-6", "say hello"],
      {
        cwd: join(dir, "repo"),
        env: {
          XDG_DATA_HOME: join(dir, "data"),
          XDG_CONFIG_HOME: join(dir, "config"),
          ANTHROPIC_API_KEY: "test-key",
          ANTHROPIC_BASE_URL: anthropicMessagesFormat.baseUrl(server.url),
        },
      },
    );
    expect(result.code).toBe(0);
    // 100k uncached at $3, 800k read at $0.30, 100k written at $3.75, 100k out at $15 (per million).
    const line = "1M in (800k cached, 100k written to cache) · 100k out · $2.4150";
    expect(result.stderr).toContain(`  ${line}\n`);
    expect(result.stderr).toContain(`done: 1 model request · 0 tool calls · ${line}\n`);
  });

  it("shows OpenAI's cached prompt tokens and prices them at the cached rate", async () => {
    // On the wire: prompt_tokens 1M (cached ones included), prompt_tokens_details.cached_tokens 800k.
    server.enqueue({
      kind: "stream",
      events: openaiChatFormat.events({
        text: "Hello.",
        usage: { inputTokens: 1_000_000, cacheReadTokens: 800_000, outputTokens: 100_000 },
      }),
    });
    const result = await runCli(
      [
        "run",
        "--provider",
        "openai-chat",
        "--model",
        "gpt-4.1",
        "--base-url",
        openaiChatFormat.baseUrl(server.url),
        "say hello",
      ],
      {
        cwd: join(dir, "repo"),
        env: {
          XDG_DATA_HOME: join(dir, "data"),
          XDG_CONFIG_HOME: join(dir, "config"),
          OPENAI_API_KEY: "test-key",
        },
      },
    );
    expect(result.code).toBe(0);
    // 200k uncached at $2, 800k cached at $0.50, 100k out at $8; uncached pricing would say $2.8000.
    expect(result.stderr).toContain(
      "done: 1 model request · 0 tool calls · 1M in (800k cached) · 100k out · $1.6000\n",
    );
  });
});
