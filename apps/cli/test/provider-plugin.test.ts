// A provider added with one descriptor, as a user adds it: a module named in their own config, reached with
// `bridle run --provider NAME`, talking to a loopback fake server. A workspace's config cannot add one.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, openaiChatFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/fixture-provider.mjs", import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-provider-plugin-"));
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

const env = () => ({
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  FIXTURE_API_KEY: "fixture-key",
  FIXTURE_BASE_URL: openaiChatFormat.baseUrl(server.url),
});

async function userConfig(values: Record<string, unknown>): Promise<void> {
  await mkdir(join(dir, "config", "bridle"), { recursive: true });
  await writeFile(join(dir, "config", "bridle", "bridle.config.json"), JSON.stringify(values));
}

describe("the ai-sdk provider", () => {
  it("runs an installed AI SDK provider package named in the model, against its base URL", async () => {
    server.enqueue({
      kind: "stream",
      events: openaiChatFormat.events({ text: "Hello through the AI SDK." }),
    });
    const run = await runCli(
      [
        "run",
        "say hello",
        "--provider",
        "ai-sdk",
        "--model",
        "@ai-sdk/openai-compatible:qwen3",
        "--base-url",
        openaiChatFormat.baseUrl(server.url),
        "--sandbox",
        "off",
      ],
      { cwd: dir, env: { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") } },
    );
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Hello through the AI SDK.");
    expect(server.requests[0]?.body).toMatchObject({ model: "qwen3" });
  });
});

describe("a provider from the user's config", () => {
  it("is reached with --provider, with its default model, key and base URL", async () => {
    await userConfig({ providers: [FIXTURE] });
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "Hello from the fixture." }) });
    const run = await runCli(["run", "say hello", "--provider", "fixture", "--sandbox", "off"], {
      cwd: dir,
      env: env(),
    });
    expect(run.stderr).not.toMatch(/stopped:|error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the fixture.");
    expect(server.requests[0]?.body).toMatchObject({ model: "fixture-small" });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer fixture-key");
  });

  it("needs its own key, and an unknown name lists the providers there are", async () => {
    await userConfig({ providers: [FIXTURE] });
    const noKey = await runCli(["run", "hi", "--provider", "fixture"], {
      cwd: dir,
      env: { ...env(), FIXTURE_API_KEY: "" },
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("--provider fixture needs FIXTURE_API_KEY, which is not set");
    const unknown = await runCli(["run", "hi", "--provider", "nosuch"], { cwd: dir, env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no provider named "nosuch" (known: openai, openai-chat, anthropic, ai-sdk, fixture)',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a module that is not a descriptor, and a workspace config that names one", async () => {
    const bad = join(dir, "bad.mjs");
    await writeFile(bad, "export default { name: 'Bad Name', create() {} };\n");
    await userConfig({ providers: [bad] });
    const refused = await runCli(["run", "hi", "--provider", "fixture"], { cwd: dir, env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("name must be lowercase letters, digits and dashes");
    // The workspace's own config: the setting is user-only, so the module is never loaded.
    await userConfig({});
    const marker = join(dir, "loaded");
    const evil = join(dir, "evil.mjs");
    await writeFile(
      evil,
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x");\n`,
    );
    const repo = join(dir, "repo");
    await mkdir(repo);
    await writeFile(join(repo, "bridle.config.json"), JSON.stringify({ providers: [evil] }));
    const workspace = await runCli(["tools", "list", "--provider", "fixture"], { cwd: repo, env: env() });
    expect(workspace.code).toBe(2);
    const { existsSync } = await import("node:fs");
    expect(existsSync(marker)).toBe(false);
  });
});
