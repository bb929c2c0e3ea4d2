// The user config's `models` section, as a person with a local model writes it: its row prices the cost
// line, says whether images go and silences the unknown-model warning; a model with no row gets that
// warning in the words of the README, pointing at the section. A workspace config cannot set rows, and a
// malformed row is refused in the config's own words.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-models-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  await mkdir(join(dir, "config", "bridle"), { recursive: true });
  await writeFile(join(repo, "screen.png"), PNG);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

async function userConfig(values: Record<string, unknown>): Promise<void> {
  await writeFile(join(dir, "config", "bridle", "bridle.config.json"), JSON.stringify(values));
}

function run(prompt: string, model: string) {
  const url = openaiResponsesFormat.baseUrl(server?.url ?? "http://127.0.0.1:9");
  return runCli(["run", prompt, "--model", model, "--base-url", url, "--no-coding"], {
    cwd: repo,
    env: { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" },
  });
}

const LOCAL_ROW = {
  contextWindow: 32_000,
  maxOutputTokens: 4_096,
  price: { input: 2, output: 10 },
  capabilities: { images: true },
};

it("a row for a local model prices it, lets its images go and says no warning", async () => {
  await userConfig({ models: { "my-local-model": LOCAL_ROW } });
  server = await fakeOpenAI([
    { text: "A login form.", usage: { inputTokens: 500_000, outputTokens: 100_000 } },
  ]);
  const result = await run("what is on screen.png?", "my-local-model");
  expect(result.code).toBe(0);
  expect(result.stderr).not.toContain("warning");
  // 0.5M input at $2 and 0.1M output at $10 per million.
  expect(result.stderr).toMatch(/^ {2}500k in · 100k out · \$2\.0000$/m);
  expect(result.stderr).toMatch(/^done: 1 model request · 0 tool calls · .* · \$2\.0000$/m);
  expect(result.stderr).toContain("bridle: attached image screen.png (image/png, 12 bytes)");
  expect(JSON.stringify(server.requests[0]?.body)).toContain(
    `data:image/png;base64,${PNG.toString("base64")}`,
  );
});

it("a model with no row is warned about once, in the README's words, and the images stay home", async () => {
  await userConfig({ models: { "my-local-model": LOCAL_ROW } });
  server = await fakeOpenAI([{ text: "ok", usage: { inputTokens: 10, outputTokens: 1 } }, { text: "ok" }]);
  const result = await run("what is on screen.png?", "another-model");
  expect(result.code).toBe(0);
  const warnings = result.stderr.split("\n").filter((line) => line.startsWith("warning:"));
  expect(warnings).toEqual([
    'warning: openai/another-model is not in bridle\'s model table: its context window, prices and capabilities are unknown; describe it in the "models" section of your config',
  ]);
  expect(result.stderr).toMatch(/done: .* · cost unknown: no price for another-model/);
  expect(JSON.stringify(server.requests[0]?.body)).not.toContain("input_image");
});

it("refuses a malformed row in the config's words, and rows from a workspace config", async () => {
  await userConfig({ models: { "my-local-model": { contextWindow: "big" } } });
  const bad = await run("hi", "my-local-model");
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(
    /^bridle: invalid settings \(.*bridle\.config\.json\): models\.my-local-model\.contextWindow: /m,
  );

  await userConfig({});
  await writeFile(
    join(repo, "bridle.config.json"),
    JSON.stringify({ models: { "another-model": LOCAL_ROW } }),
  );
  server = await fakeOpenAI([{ text: "ok" }]);
  const fromWorkspace = await run("hi", "another-model");
  expect(fromWorkspace.code).toBe(0);
  expect(fromWorkspace.stderr).toContain("models is ignored in a workspace config");
  expect(fromWorkspace.stderr).toContain("openai/another-model is not in bridle's model table");
});
