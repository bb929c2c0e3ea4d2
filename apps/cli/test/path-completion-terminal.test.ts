// Tab after `@` in the interactive prompt, as a person uses it: a folder, then a file, completed from what
// git shows; git-ignored, secret and protected paths are never offered; the completed @path attaches.
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, userTexts } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-complete");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-complete-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src", "cart"), { recursive: true });
  await mkdir(join(repo, "build"));
  await writeFile(join(repo, "src", "cart", "total.ts"), "export const total = 3;\n");
  await writeFile(join(repo, "src", "cart", "tax.ts"), "export const tax = 1;\n");
  await writeFile(join(repo, "build", "bundle.js"), "ignored\n");
  await writeFile(join(repo, ".gitignore"), "build/\n");
  await writeFile(join(repo, ".env"), "TOKEN=x\n");
  await writeFile(join(repo, "bridle.config.json"), "{}\n");
  execFileSync("git", ["init", "-q"], { cwd: repo });
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

/** Gives the completer's answer to a Tab time to arrive: nothing on the screen changes to wait for. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

it("completes @paths with Tab from what git shows, never ignored, secret or protected ones", async () => {
  server = await fakeOpenAI([{ text: "Total is 3." }]);
  terminal.start(
    ["--model", "m", "--base-url", openaiResponsesFormat.baseUrl(server.url), "--cwd", repo, "--no-coding"],
    { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  );
  await terminal.waitFor(/› $/m);
  // One match completes at once, to the folder; two are listed and the common part is filled in.
  terminal.keys("explain @s", "Tab");
  await terminal.waitFor(/› explain @src\/$/m);
  terminal.keys("Tab");
  await terminal.waitFor(/› explain @src\/cart\/$/m);
  // The first Tab finds two matches and nothing to add; the second, once the first is answered, lists them.
  terminal.keys("t", "Tab");
  await settle();
  terminal.keys("Tab");
  await terminal.waitFor(/@src\/cart\/tax\.ts\s+@src\/cart\/total\.ts/);
  terminal.keys("o", "Tab");
  await terminal.waitFor(/› explain @src\/cart\/total\.ts ?$/m);

  // Everything offered at the top: the ignored folder, the secret and the protected config are not.
  terminal.keys("and @", "Tab");
  await settle();
  terminal.keys("Tab");
  const listed = await terminal.waitFor(/@src\//);
  const offered = listed.slice(listed.indexOf("and @"));
  expect(offered).toContain("@.gitignore");
  expect(offered).not.toContain("@build");
  expect(offered).not.toContain("@.env");
  expect(offered).not.toContain("@bridle.config.json");

  terminal.keys("C-u");
  terminal.keys("explain @src/cart/total.ts", "Enter");
  await terminal.waitFor(/Total is 3\./);
  expect(userTexts(server.requests[0]?.body)[0]).toContain('<file path="src/cart/total.ts">');
});
