// /compact, as the interactive session calls it: the agent composed as the CLI composes it, against the fake
// OpenAI server, with its real session store.
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Message, sessionSink, sessionTranscript, textOf, type UserMessage } from "@bridle/core";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { composeAgent } from "../src/run/agent.js";
import { compactSession } from "../src/run/compact.js";
import { loadSettings } from "../src/settings/config.js";
import { approveEverything } from "../src/terminal/approvers.js";
import { fakeOpenAI, queueTurns } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const previousData = process.env.XDG_DATA_HOME;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-compact-"));
  // The kit keeps memory and spilled output under the data folder: a temporary one, not the user's.
  process.env.XDG_DATA_HOME = join(dir, "data");
});
afterEach(async () => {
  if (previousData === undefined) delete process.env.XDG_DATA_HOME;
  else process.env.XDG_DATA_HOME = previousData;
  await server?.close();
  server = undefined;
  await cleanup();
});

it("/compact summarises all but the latest prompt, records it, and says the tokens before and after", async () => {
  server = await fakeOpenAI([
    { text: `First answer. ${"detail ".repeat(2_000)}` },
    { text: "Second answer." },
  ]);
  const env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
  const settings = await loadSettings(
    {
      cwd: dir,
      provider: "openai",
      model: "test-model",
      baseUrl: openaiResponsesFormat.baseUrl(server.url),
      sandbox: "off",
    },
    env,
    { warn: () => {} },
  );
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = "k";
  const agent = await composeAgent(settings, approveEverything, { enabled: false, repairAttempts: 0 });
  if (saved === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = saved;
  try {
    const session = await agent.store.createSession();
    let history = (
      await agent.harness.run({
        prompt: "first question",
        sessionId: session.id,
        sink: sessionSink(agent.store, session.id),
      })
    ).messages;
    history = (
      await agent.harness.run({
        prompt: "second question",
        history,
        sessionId: session.id,
        sink: sessionSink(agent.store, session.id),
      })
    ).messages;
    expect(history).toHaveLength(4);

    queueTurns(server, [{ text: "The user asked a first question; it was answered at length." }]);
    const outcome = await compactSession(agent, session.id, history);
    const tokens = /tokens ~(\d+) → ~(\d+)/.exec(outcome.message);
    expect(outcome.message).toMatch(/^compacted on request: 2 messages summarised/);
    expect(outcome.message).toContain("summary: The user asked a first question");
    expect(Number(tokens?.[2])).toBeLessThan(Number(tokens?.[1]));
    expect(outcome.history).toHaveLength(3);
    // The harness's own summary form, so people and models tell it from a prompt.
    expect(textOf((outcome.history[0] as UserMessage).content)).toMatch(
      /^\[Summary of the earlier conversation[^\n]*\]\n\nThe user asked a first question/,
    );
    // The summary request carried no tools, and the history as a text document.
    const request = server.requests.at(-1)?.body as { tools?: unknown[]; input: unknown };
    expect(request.tools ?? []).toEqual([]);
    expect(JSON.stringify(request.input)).toContain("first question");
    // A resume sees the compacted transcript.
    expect(await sessionTranscript(agent.store, session.id)).toEqual(outcome.history);

    const again = await compactSession(agent, session.id, outcome.history.slice(-1));
    expect(again.message).toBe("nothing to compact yet");
  } finally {
    await agent.close();
  }
});

it("/compact TEXT runs the PreCompact scripts first (manual, with TEXT), which may refuse; PostCompact after", async () => {
  const log = join(dir, "compact-hooks.jsonl");
  const script = join(dir, "pre-compact.sh");
  await writeFile(
    script,
    `#!/bin/bash
input=$(cat)
echo "$input" >> "${log}"
if echo "$input" | grep -q '"custom_instructions":"not now"'; then
  echo "a release is being tagged" >&2
  exit 2
fi
`,
  );
  await chmod(script, 0o755);
  await mkdir(join(dir, "config", "bridle"), { recursive: true });
  await writeFile(
    join(dir, "config", "bridle", "bridle.config.json"),
    JSON.stringify({
      hooks: {
        PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: script }] }],
        PostCompact: [
          { matcher: "manual", hooks: [{ type: "command", command: `cat >> "${log}"; echo >> "${log}"` }] },
        ],
      },
    }),
  );
  server = await fakeOpenAI([
    { text: `First answer. ${"detail ".repeat(2_000)}` },
    { text: "Second answer." },
  ]);
  const env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
  const settings = await loadSettings(
    {
      cwd: dir,
      provider: "openai",
      model: "test-model",
      baseUrl: openaiResponsesFormat.baseUrl(server.url),
      sandbox: "off",
    },
    env,
    { warn: () => {} },
  );
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = "k";
  const agent = await composeAgent(settings, approveEverything, { enabled: false, repairAttempts: 0 });
  if (saved === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = saved;
  const session = await agent.store.createSession();
  let history: readonly Message[] = [];
  try {
    for (const prompt of ["first question", "second question"]) {
      history = (
        await agent.harness.run({
          prompt,
          history,
          sessionId: session.id,
          sink: sessionSink(agent.store, session.id),
        })
      ).messages;
    }
    const refused = await compactSession(agent, session.id, history, undefined, "not now");
    expect(refused.message).toBe("compaction blocked by a hook: a release is being tagged");
    expect(refused.history).toBe(history);

    queueTurns(server, [{ text: "The user asked two questions about file names." }]);
    const outcome = await compactSession(agent, session.id, history, undefined, "keep the file names");
    expect(outcome.history).toHaveLength(3);
    // The person's instructions reached the summary request.
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("keep the file names");
  } finally {
    await agent.close();
  }
  const lines = (await readFile(log, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
  expect(lines).toMatchObject([
    {
      hook_event_name: "PreCompact",
      trigger: "manual",
      custom_instructions: "not now",
      session_id: session.id,
    },
    { hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the file names" },
    {
      hook_event_name: "PostCompact",
      trigger: "manual",
      compact_summary: expect.stringContaining("two questions about file names"),
    },
  ]);
});
