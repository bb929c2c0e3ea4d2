// The live-provider path without a key: bridle-eval pointed with --base-url at a loopback server that speaks
// the OpenAI Chat Completions wire format (@bridle/testing's fake), as it would at vLLM or Ollama.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeProviderServer, openaiChatFormat } from "@bridle/testing";
import { afterEach, beforeEach, expect, test } from "vitest";
import { parseResultLines } from "../src/result.js";
import { runBin } from "./cli.js";

let root: string;
let server: FakeProviderServer;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "bridle-eval-live-"));
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

test("--provider openai-chat --base-url runs the task live, counts tokens and cost, ignores the scripts", async () => {
  const task = join(root, "greet");
  await mkdir(join(task, "repo"), { recursive: true });
  await writeFile(join(task, "task.yaml"), "id: greet\nsuite: live\nprompt: Write hello.txt saying hello.\n");
  await writeFile(join(task, "repo", "README.md"), "tiny\n");
  await writeFile(
    join(task, "check.mjs"),
    `import { readFileSync } from "node:fs";
export default ({ dir, result }) => ({ pass: readFileSync(dir + "/hello.txt", "utf8") === "hello\\n", notes: [result.provider + "/" + result.model + "/" + result.script] });
`,
  );
  const writeCall = {
    id: "call_1",
    name: "write_file",
    arguments: JSON.stringify({ path: "hello.txt", content: "hello\n" }),
  };
  server.enqueue(
    {
      kind: "stream",
      events: openaiChatFormat.events({
        toolCalls: [writeCall],
        usage: { inputTokens: 1200, outputTokens: 40 },
      }),
    },
    {
      kind: "stream",
      events: openaiChatFormat.events({
        text: "Wrote hello.txt.",
        usage: { inputTokens: 1300, outputTokens: 10 },
      }),
    },
  );
  const out = join(root, "results.jsonl");
  const run = await runBin(
    [
      "run",
      task,
      "--provider",
      "openai-chat",
      "--model",
      "gpt-4.1-mini",
      "--base-url",
      openaiChatFormat.baseUrl(server.url),
      "--out",
      out,
    ],
    { cwd: root, env: { OPENAI_API_KEY: "test-key" } },
  );
  expect(run.stderr).toContain("1 runs: 1 of 1 passed");
  expect(run.code).toBe(0);
  const [line] = parseResultLines(await readFile(out, "utf8"));
  expect(line).toMatchObject({
    provider: "openai-chat",
    model: "gpt-4.1-mini",
    script: "live",
    pass: true,
    turns: 2,
    toolCalls: 1,
    inputTokens: 2500,
    outputTokens: 50,
    notes: ["openai-chat/gpt-4.1-mini/live"],
  });
  expect(line?.costUsd).toBeGreaterThan(0);
  expect(server.requests).toHaveLength(2);
});

test("a live provider without a key or base URL is refused before any run, exit 2", async () => {
  const run = await runBin(["run", root, "--provider", "anthropic"], { cwd: root, env: {} });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("needs ANTHROPIC_API_KEY");
});
