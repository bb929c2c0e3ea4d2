// Custom prompts as slash commands, @file in the interactive session, and /cost, driven in a terminal:
// /help lists the user's and the workspace's commands, `/review ARGS` sends the command's text with
// $ARGUMENTS replaced (its @path attached), and /cost sums the session's recorded usage.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { anthropicMessagesFormat, FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-custom");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-custom-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, ".bridle", "commands"), { recursive: true });
  await mkdir(join(repo, "src"));
  await mkdir(join(dir, "config", "bridle", "commands"), { recursive: true });
  await writeFile(join(repo, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(
    join(dir, "config", "bridle", "commands", "review.md"),
    "---\ndescription: Review code for bugs\n---\nReview $ARGUMENTS for bugs; $ARGUMENTS only.\n",
  );
  await writeFile(join(dir, "config", "bridle", "commands", "explain.md"), "Explain it like the user's.\n");
  // The workspace's command of the same name replaces the user's.
  await writeFile(join(repo, ".bridle", "commands", "explain.md"), "Explain it simply.\n");
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  terminal.kill();
  await server.close();
  await cleanup();
});

function answer(text: string): void {
  server.enqueue({
    kind: "stream",
    events: anthropicMessagesFormat.events({
      text,
      usage: { inputTokens: 1_000_000, outputTokens: 100_000 },
    }),
  });
}

/** The last user message's text of one recorded Anthropic Messages request. */
function lastUserText(index: number): string {
  const body = server.requests[index]?.body as { messages: { role: string; content: unknown }[] };
  const last = body.messages.filter((m) => m.role === "user").at(-1)?.content;
  if (typeof last === "string") return last;
  return (last as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");
}

it("runs custom commands with arguments and attachments, lists them in /help, and says the cost", async () => {
  answer("Looks fine.");
  answer("It adds.");
  terminal.start(["--provider", "anthropic", "--model", "claude-sonnet-4-6", "--no-coding", "--cwd", repo], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: anthropicMessagesFormat.baseUrl(server.url),
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
  });
  await terminal.waitFor(/› $/m);
  terminal.keys("/cost", "Enter");
  await terminal.waitFor(/session so far: 0 model requests · 0 in · 0 out/);
  terminal.keys("/help", "Enter");
  const help = await terminal.waitFor(/\[workspace\]/);
  expect(help).toContain("/cost");
  expect(help).toMatch(/\/review {7}Review code for bugs {2}\[user\]/);
  expect(help).toMatch(/\/explain {6}\(no description\) {2}\[workspace\]/);

  terminal.keys("/review @src/a.ts", "Enter");
  await terminal.waitFor(/Looks fine\./);
  expect(terminal.screen()).toContain("bridle: attached src/a.ts (20 bytes)");
  expect(lastUserText(0)).toBe(
    'Review @src/a.ts for bugs; @src/a.ts only.\n\n<file path="src/a.ts">\nexport const a = 1;\n</file>',
  );
  terminal.keys("/explain", "Enter");
  await terminal.waitFor(/It adds\./);
  expect(lastUserText(1)).toBe("Explain it simply.");

  terminal.keys("/cost", "Enter");
  // Two requests of 1M in and 100k out at $3 and $15 per million.
  await terminal.waitFor(/session so far: 2 model requests · 2M in · 200k out · \$9\.0000/);
  terminal.keys("/nosuch", "Enter");
  await terminal.waitFor(/unknown command \/nosuch; \/help lists them/);
  expect(server.requests).toHaveLength(2);
});
