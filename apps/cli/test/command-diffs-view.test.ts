// A shell command's changes in the session's pages: a real run recorded by the built CLI, then its
// exported page and `bridle view`'s live page opened in headless Chromium, offline.
import type { ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";
import { offlinePage, startView } from "./view-pages.js";

let dir: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;
let server: FakeProviderServer | undefined;
let view: ChildProcess | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-command-diffs-view-"));
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
});
afterEach(async () => {
  view?.kill("SIGKILL");
  view = undefined;
  await server?.close();
  server = undefined;
  await cleanup();
});

/** `bridle view` in this test's folder, killed after the test. */
function openView(): Promise<string> {
  const started = startView(dir, env);
  view = started.child;
  return started.url;
}

/** The bash call's diff lines, opened. */
async function commandDiff(page: Page): Promise<{ del: string[]; add: string[]; hdr: string[] }> {
  await page.waitForSelector("body[data-ready=true]");
  const bash = page.locator(".call", { hasText: "bash" });
  await bash.locator("button.fold").click();
  return {
    del: await bash.locator(".dl.del").allInnerTexts(),
    add: await bash.locator(".dl.add").allInnerTexts(),
    hdr: await bash.locator(".dl.hdr").allInnerTexts(),
  };
}

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("the exported page and the live viewer draw what a command changed, naming a binary file", async () => {
    const repo = join(dir, "repo");
    await mkdir(repo);
    await writeFile(join(repo, "consts.js"), "const a = 1;\nconst b = 2;\n");
    server = await fakeOpenAI([
      {
        toolCalls: [
          call("c1", "bash", {
            command: "sed -i 's/b = 2/b = 20/' consts.js && printf 'P\\000NG' > logo.bin",
          }),
        ],
      },
      { text: "Changed b." },
    ]);
    const url = openaiResponsesFormat.baseUrl(server.url);
    const run = await runCli(
      [
        "run",
        "change b",
        "--session",
        "cmd",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        url,
      ].concat(["--permission-mode", "full-access", "--cwd", repo]),
      { cwd: dir, env },
    );
    expect(run.code, run.stderr).toBe(0);

    const exported = await runCli(["sessions", "export", "cmd", "--html", "cmd.html"], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    const page = await offlinePage(browser);
    await page.goto(pathToFileURL(join(dir, "cmd.html")).href);
    const drawn = await commandDiff(page);
    expect(drawn.del).toEqual(["-const b = 2;"]);
    expect(drawn.add).toEqual(["+const b = 20;"]);
    expect(drawn.hdr).toEqual([
      "--- consts.js",
      "+++ consts.js",
      "@@ -2,1 +2,1 @@",
      "added logo.bin (binary, not shown)",
    ]);
    await page.context().close();

    const live = await openView();
    const livePage = await offlinePage(browser, { origin: new URL(live).origin });
    await livePage.goto(live);
    await livePage.waitForSelector("body[data-ready=true]");
    await livePage.locator("a", { hasText: /^cmd$/ }).click();
    expect(await commandDiff(livePage)).toEqual(drawn);
    await livePage.context().close();
  });
});
