// The tool lines of a run read the same in every profile: the anthropic profile's `Read` shows its
// file_path as the generic `read_file` shows its path, not the call's JSON; and counts are in words
// ("1 tool call").
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { anthropicMessagesFormat, FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-activity-"));
  await mkdir(join(dir, "repo", "src"), { recursive: true });
  await writeFile(join(dir, "repo", "src", "a.ts"), "export const a = 1;\n");
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

it("shows the anthropic profile's Read as → Read PATH, and counts in words", async () => {
  for (const turn of [
    { toolCalls: [{ id: "t1", name: "Read", arguments: JSON.stringify({ file_path: "src/a.ts" }) }] },
    { text: "It exports a." },
  ])
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events(turn) });
  const run = await runCli(
    ["run", "what does src/a.ts export?", "--model", "claude-sonnet-4-6", "--no-coding"],
    {
      cwd: join(dir, "repo"),
      env: {
        XDG_DATA_HOME: join(dir, "data"),
        XDG_CONFIG_HOME: join(dir, "config"),
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: anthropicMessagesFormat.baseUrl(server.url),
      },
    },
  );
  expect(run.code).toBe(0);
  const lines = run.stderr.split("\n");
  expect(lines).toContain("→ Read src/a.ts");
  expect(lines.some((line) => line.startsWith("done: 2 model requests · 1 tool call · "))).toBe(true);
});
