import { join } from "node:path";
import { anthropicMessagesFormat, FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-provider-"));
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

describe("the provider when none is named", () => {
  it("is Anthropic when only ANTHROPIC_API_KEY is set", async () => {
    server.enqueue({
      kind: "stream",
      events: anthropicMessagesFormat.events({ text: "Hello from Claude." }),
    });
    const run = await runCli(["run", "say hello"], {
      cwd: dir,
      env: {
        XDG_DATA_HOME: join(dir, "data"),
        XDG_CONFIG_HOME: join(dir, "config"),
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: anthropicMessagesFormat.baseUrl(server.url),
      },
    });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from Claude.");
    const [request] = server.requests;
    expect(request?.path).toMatch(/\/messages$/);
    expect(request?.body).toMatchObject({ model: "claude-sonnet-4-6" });
  });
});
