// A `models` row in the user config states a local model's context window, and that window decides when
// compaction starts: the same tokens in use compact a session on a model whose row says 40,000 tokens,
// and not one on a model with no row (assumed 128,000).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI, queueTurns, runCli } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

// Pasted text in the prompt, so a summary is smaller than what it replaces (one that is not is not applied).
const PASTED = Array.from({ length: 400 }, (_, i) => `note ${i + 1}: some notes about the project`).join(
  "\n",
);

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-models-compaction-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  await writeFile(join(repo, "notes.txt"), "some notes\n");
  await mkdir(join(dir, "config", "bridle"), { recursive: true });
  await writeFile(
    join(dir, "config", "bridle", "bridle.config.json"),
    JSON.stringify({ models: { "my-local-model": { contextWindow: 40_000 } } }),
  );
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function run(model: string) {
  const url = openaiResponsesFormat.baseUrl(server?.url ?? "http://127.0.0.1:9");
  return runCli(
    ["run", `read the notes, and keep in mind:\n${PASTED}`, "--model", model, "--base-url", url].concat([
      "--no-coding",
      "--sandbox",
      "off",
      "--json",
      "--cwd",
      repo,
    ]),
    {
      cwd: dir,
      env: { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" },
    },
  );
}

const compactions = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { type: string; reason?: string })
    .filter((event) => event.type === "compaction");

it("the row's context window decides when compaction starts", async () => {
  // 33,000 tokens in use: past 80% of the row's 40,000, so the harness compacts before the next request.
  server = await fakeOpenAI([
    { toolCalls: [call("c1", "read_file", { path: "notes.txt" })], usage: { inputTokens: 33_000 } },
    { text: "SUMMARY: notes read." },
    { text: "Compacted first." },
  ]);
  const local = await run("my-local-model");
  expect(local.code, local.stderr).toBe(0);
  expect(compactions(local.stdout)).toMatchObject([{ reason: "threshold" }]);

  // The same tokens on a model with no row: 128,000 assumed, nothing to compact.
  queueTurns(server, [
    { toolCalls: [call("c2", "read_file", { path: "notes.txt" })], usage: { inputTokens: 33_000 } },
    { text: "No compaction needed." },
  ]);
  const unknown = await run("another-local-model");
  expect(unknown.code, unknown.stderr).toBe(0);
  expect(compactions(unknown.stdout)).toEqual([]);
});
