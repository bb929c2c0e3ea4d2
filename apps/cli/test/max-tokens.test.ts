import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-"));
  await mkdir(join(dir, "repo"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

it("says an answer cut off at max_tokens is incomplete and exits non-zero", async () => {
  // The Responses API reports this as status "incomplete", reason max_output_tokens.
  server = await fakeOpenAI([{ text: "The three causes are: first, the", stopReason: "max_tokens" }]);
  const run = await runCli(
    [
      "run",
      "why is it slow?",
      "--provider",
      "openai",
      "--model",
      "test-model",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--cwd",
      join(dir, "repo"),
    ],
    {
      cwd: dir,
      env: { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" },
    },
  );
  expect(run.stdout).toContain("The three causes are: first, the");
  expect(run.stderr).toMatch(/stopped: max_tokens: .*cut off.*incomplete/);
  expect(run.stderr).not.toMatch(/done:/);
  expect(run.code).toBe(1);
});
