// Provider trouble as a person at the terminal sees it: the built CLI against loopback servers that fail,
// recover, or are addressed wrongly, with stderr read line by line.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  anthropicMessagesFormat,
  FakeProviderServer,
  openaiErrorBody,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-provider-trouble-"));
  // The user's data lives outside the workspace, as on a real machine (or the session would be a change).
  home = await mkdtemp(join(tmpdir(), "bridle-cli-provider-home-"));
  server = await FakeProviderServer.start();
  env = { XDG_DATA_HOME: join(home, "data"), XDG_CONFIG_HOME: join(home, "config") };
});
afterEach(async () => {
  await server.close();
  await cleanup();
  await rm(home, { recursive: true, force: true });
});

const serverError = {
  kind: "json" as const,
  status: 500,
  body: openaiErrorBody("server", "upstream exploded"),
};

/** stderr's lines, less the permission-mode notice every run starts with and the turn markers (other parts' concern). */
function lines(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter(
      (line) => line !== "" && !line.startsWith("bridle: permission mode") && !/^\[turn \d+\]/.test(line),
    );
}

describe("a provider that keeps failing", () => {
  it("says each retry as it waits, then prints the cause once, on one line", async () => {
    server.enqueue(serverError, serverError, serverError, serverError, serverError);
    const run = await runCli(["run", "say hello"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: openaiResponsesFormat.baseUrl(server.url) },
    });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(5);
    const seen = lines(run.stderr);
    expect(seen, run.stderr).toHaveLength(6);
    for (const [index, line] of seen.slice(0, 4).entries()) {
      expect(line).toMatch(
        new RegExp(`^retrying \\(${index + 2}/5\\) in \\d+(\\.\\d)? s… \\(server error 500\\)$`),
      );
    }
    expect(seen[4]).toBe("stopped: provider_error: 500 upstream exploded (gave up after 5 attempts)");
    expect(seen[5]).toMatch(/^session: [0-9a-f-]{36}$/);
    expect(run.stderr.match(/upstream exploded/g)).toHaveLength(1);
  });
});

describe("a provider that recovers", () => {
  it("shows the two retries, then the answer, and no failure", async () => {
    server.enqueue(serverError, serverError, {
      kind: "stream",
      events: openaiResponsesFormat.events({ text: "Hello after two retries." }),
    });
    const run = await runCli(["run", "say hello"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: openaiResponsesFormat.baseUrl(server.url) },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello after two retries.");
    const seen = lines(run.stderr);
    expect(seen[0]).toMatch(/^retrying \(2\/5\) in [\d.]+ s… \(server error 500\)$/);
    expect(seen[1]).toMatch(/^retrying \(3\/5\) in [\d.]+ s… \(server error 500\)$/);
    expect(seen.slice(2).join("\n")).not.toMatch(/retrying|stopped:|upstream exploded/);
    expect(server.requests).toHaveLength(3);
  });

  it("writes each retry as a model_retry event in --json", async () => {
    server.enqueue(serverError, {
      kind: "stream",
      events: openaiResponsesFormat.events({ text: "ok" }),
    });
    const run = await runCli(["run", "say hello", "--json", "--no-coding"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: openaiResponsesFormat.baseUrl(server.url) },
    });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    const retries = events.filter((event) => event.type === "model_retry");
    expect(retries).toEqual([
      expect.objectContaining({
        attempt: 2,
        maxAttempts: 5,
        error: expect.objectContaining({ code: "server", status: 500 }),
      }),
    ]);
    const types = events.map((event) => event.type);
    expect(types.indexOf("model_retry")).toBeGreaterThan(types.indexOf("model_request"));
    expect(types.indexOf("model_retry")).toBeLessThan(types.indexOf("model_response"));
  });
});

describe("a base URL without its scheme", () => {
  it("that is no URL at all is a usage error on one line", async () => {
    const run = await runCli(["run", "say hello", "--base-url", "127.0.0.1:9/v1"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key" },
    });
    expect(run.code).toBe(2);
    const seen = lines(run.stderr);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/base-?url/i);
  });

  it.each([
    ["--base-url", ["--base-url", "localhost:9/v1"], {}, "--base-url localhost:9/v1: not an http(s) URL"],
    [
      "OPENAI_BASE_URL",
      [],
      { OPENAI_BASE_URL: "localhost:9/v1" },
      "OPENAI_BASE_URL localhost:9/v1: not an http(s) URL",
    ],
  ])("from %s is a usage error, sent nowhere", async (_from, flags, extra, message) => {
    const run = await runCli(["run", "say hello", ...flags], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key", ...extra },
    });
    expect(run.code).toBe(2);
    const seen = lines(run.stderr);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain(message);
    expect(seen[0]).not.toMatch(/retrying/);
  });
});

describe("the provider follows the key and the model name", () => {
  it("talks Anthropic Messages for a claude-* model with --base-url and only ANTHROPIC_API_KEY", async () => {
    server.enqueue({
      kind: "stream",
      events: anthropicMessagesFormat.events({ text: "Hello from Claude." }),
    });
    const run = await runCli(
      [
        "run",
        "say hello",
        "--model",
        "claude-haiku-4-5",
        "--base-url",
        anthropicMessagesFormat.baseUrl(server.url),
      ],
      { cwd: dir, env: { ...env, ANTHROPIC_API_KEY: "anthropic-test-key" } },
    );
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from Claude.");
    const [request] = server.requests;
    expect(request?.path).toMatch(/\/messages$/);
    expect(JSON.stringify(request?.headers)).toContain("anthropic-test-key");
    expect(request?.body).toMatchObject({ model: "claude-haiku-4-5" });
  });

  it("names ANTHROPIC_API_KEY when a claude-* model has no key, and sends nothing", async () => {
    const run = await runCli(
      [
        "run",
        "say hello",
        "--model",
        "claude-haiku-4-5",
        "--base-url",
        anthropicMessagesFormat.baseUrl(server.url),
      ],
      { cwd: dir, env: { ...env, OPENAI_API_KEY: "openai-test-key" } },
    );
    expect(run.code).toBe(2);
    const seen = lines(run.stderr);
    expect(seen).toEqual([
      "bridle: model claude-haiku-4-5 talks Anthropic Messages and needs ANTHROPIC_API_KEY, which is not set (an OpenAI-compatible server for it: --provider openai-chat)",
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it("names ANTHROPIC_API_KEY for --provider anthropic with a base URL and no key", async () => {
    const run = await runCli(
      [
        "run",
        "say hello",
        "--provider",
        "anthropic",
        "--base-url",
        anthropicMessagesFormat.baseUrl(server.url),
      ],
      { cwd: dir, env },
    );
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "bridle: --provider anthropic needs ANTHROPIC_API_KEY, which is not set",
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it("keeps an OpenAI-compatible server for a claude-* model when --provider openai-chat says so", async () => {
    server.enqueue({ kind: "stream", events: [] });
    const run = await runCli(
      [
        "run",
        "say hello",
        "--no-coding",
        "--provider",
        "openai-chat",
        "--model",
        "claude-haiku-4-5",
        "--base-url",
        `${server.url}/v1`,
      ],
      { cwd: dir, env: { ...env, OPENAI_API_KEY: "k" } },
    );
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(run.stderr).not.toMatch(/ANTHROPIC_API_KEY/);
  });
});

describe("a provider that sends headers and then goes quiet", () => {
  it("gives up each attempt after --idle-timeout and ends with a clear error instead of hanging", async () => {
    const quiet = { kind: "stream" as const, events: [], hangAfter: 0 };
    server.enqueue(quiet, quiet, quiet, quiet, quiet);
    const run = await runCli(["run", "say hello", "--idle-timeout", "0.5"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: openaiResponsesFormat.baseUrl(server.url) },
    });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(5);
    const seen = lines(run.stderr);
    expect(
      seen.filter((line) => /^retrying \(\d\/5\) in .*\(no answer\)$/.test(line)),
      run.stderr,
    ).toHaveLength(4);
    expect(
      seen.filter((line) => line.startsWith("stopped: ")),
      run.stderr,
    ).toHaveLength(1);
  });

  it("refuses an idle timeout that is not a positive number, in one line", async () => {
    const run = await runCli(["run", "say hello", "--idle-timeout", "soon"], {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: openaiResponsesFormat.baseUrl(server.url) },
    });
    expect(run.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^bridle: --idle-timeout soon: not a /)]);
  });
});
