// Getting back to a session as a person does: -c continues this workspace's latest, a bare --resume needs a
// terminal to pick on, a resumed run shows where the session stood, and listings say each session's workspace.
import { mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli, userTexts } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;
let here: string;
let there: string;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-continue-"));
  here = join(dir, "here");
  there = join(dir, "there");
  await mkdir(here);
  await mkdir(there);
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

const model = (s: FakeProviderServer) => [
  "--provider",
  "openai",
  "--model",
  "m",
  "--base-url",
  openaiResponsesFormat.baseUrl(s.url),
  "--no-coding",
];

async function run(cwd: string, args: string[]) {
  return runCli(["run", ...args, ...(server ? model(server) : [])], { cwd, env });
}

it("-c continues this workspace's latest session, shows it so far, and the listing names workspaces", async () => {
  server = await fakeOpenAI([
    { text: "Old answer." },
    { text: "Elsewhere answer." },
    { text: "Latest answer here." },
    { text: "Continued." },
  ]);
  expect((await run(here, ["an old question"])).code).toBe(0);
  expect((await run(there, ["a question elsewhere"])).code).toBe(0);
  const latest = await run(here, ["the latest question\u001b[31m"]);
  expect(latest.code).toBe(0);
  const latestId = /session: (\S+)/.exec(latest.stderr)?.[1] as string;

  // The latest in `there` is newer, but -c in `here` takes here's.
  const continued = await run(here, ["-c", "and then?"]);
  expect(continued.stderr).not.toMatch(/error/i);
  expect(continued.code).toBe(0);
  expect(userTexts(server.requests[3]?.body)).toEqual(["the latest question\u001b[31m", "and then?"]);
  expect(continued.stderr).toContain(`session: ${latestId}`);
  // The transcript so far, before the new turn, with the escape made visible.
  const recap = continued.stderr.slice(continued.stderr.indexOf("── the session so far"));
  expect(recap.split("\n").slice(0, 4)).toEqual([
    "── the session so far",
    "user: the latest question\\x1b[31m",
    "assistant: Latest answer here.",
    "──",
  ]);

  const list = await runCli(["sessions", "list"], { cwd: here, env });
  expect(list.code).toBe(0);
  const lines = list.stdout.trim().split("\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toContain(latestId);
  expect(lines[0]).toContain(`  ${await realpath(here)}  `);
  expect(lines[1]).toContain(`  ${await realpath(there)}  a question elsewhere`);
});

it("says when there is nothing to continue, and asks for an id when no terminal can pick one", async () => {
  const none = await runCli(["run", "-c", "hello", "--cwd", here], { cwd: here, env });
  expect(none.code).toBe(1);
  expect(none.stderr).toContain("no sessions in");
  expect(none.stderr).toContain("to continue");

  const bare = await runCli(["run", "hello", "--resume"], { cwd: here, env });
  expect(bare.code).toBe(2);
  expect(bare.stderr).toContain("give --resume ID");

  const both = await runCli(["run", "hello", "-c", "--resume", "abc"], { cwd: here, env });
  expect(both.code).toBe(2);
  expect(both.stderr).toContain("--continue picks the session itself");

  const durable = await runCli(["run", "hello", "-c", "--durable"], { cwd: here, env });
  expect(durable.code).toBe(2);
  expect(durable.stderr).toContain("a durable run names its session: give --resume ID");

  const elsewhere = await runCli(["sessions", "list", "-c"], { cwd: here, env });
  expect(elsewhere.code).toBe(2);
  expect(elsewhere.stderr).toContain("--continue is an option of bridle run and the interactive session");
});
