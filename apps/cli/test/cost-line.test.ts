import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { anthropicMessagesFormat, FakeProviderServer, tempWorkspace } from "@bridle/testing";
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
    expect(result.stderr).toContain("warning: anthropic model claude-opus-4-9 has no row");
    expect(result.stderr).toMatch(/\[turn 1\] .* · cost unknown\n/);
    expect(result.stderr).toMatch(/done: .* · cost unknown: no price for claude-opus-4-9/);
    // claude-opus-4's $15/$75 would have made it $22.5.
    expect(result.stderr).not.toContain("$22.5");
  });
});
