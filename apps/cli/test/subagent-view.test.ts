// A subagent's run in the session's pages: a real run recorded by the built CLI, whose model spawns the
// built-in helper, then its exported page and `bridle view`'s live page opened in headless Chromium,
// offline. The child's rows must sit one level deeper, right under the call that started them.
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
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-subagent-view-"));
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

interface DrawnRow {
  readonly text: string;
  readonly depth: number;
  readonly nested: boolean;
  /** Where the row starts on the page, in CSS pixels: the indentation a person sees. */
  readonly left: number;
}

/** The transcript's rows in their order (the list draws them out of DOM order, each with its index). */
async function drawnRows(page: Page): Promise<DrawnRow[]> {
  await page.waitForSelector("body[data-ready=true]");
  const rows = await page.$$eval(".scroller-inner > .vrow", (els) =>
    els.map((el) => ({
      index: Number(el.getAttribute("data-index")),
      text: (el.textContent ?? "").replace(/\s+/g, " ").trim(),
      depth: Number(el.getAttribute("data-depth") ?? "0"),
      nested: el.classList.contains("nested"),
      left: el.getBoundingClientRect().left,
    })),
  );
  return rows.sort((a, b) => a.index - b.index).map(({ index: _, ...row }) => row);
}

/**
 * The child's rows must be the block right under the spawn call, one level deeper and drawn further
 * right, holding the helper's whole run; every row around them, the parent's, stays at the top level.
 */
function expectNestedUnderSpawn(rows: readonly DrawnRow[]): void {
  const shown = JSON.stringify(rows, null, 1);
  const spawnAt = rows.findIndex((row) => /^▸ agent_spawn\b/.test(row.text));
  expect(spawnAt, shown).toBeGreaterThanOrEqual(0);
  const spawn = rows[spawnAt] as DrawnRow;
  expect(spawn, shown).toMatchObject({ depth: 0, nested: false });
  let end = spawnAt + 1;
  while (end < rows.length && (rows[end]?.depth ?? 0) > 0) end++;
  const child = rows.slice(spawnAt + 1, end);
  expect(child[0]?.text, shown).toMatch(/^helper: run started/);
  expect(child.at(-1)?.text, shown).toMatch(/^run completed · 2 model requests, 1 tool call/);
  const texts = child.map((row) => row.text);
  const at = (pattern: RegExp) => texts.findIndex((text) => pattern.test(text));
  const task = at(/^user ?count the lines of src\/count\.txt$/);
  const read = at(/^▸ read_file src\/count\.txt\b/);
  const answer = at(/^assistant ?It has 3 lines\.$/);
  expect(
    [task, read, answer].every((i) => i > 0),
    shown,
  ).toBe(true);
  expect(task).toBeLessThan(read);
  expect(read).toBeLessThan(answer);
  for (const row of child) {
    expect(row, row.text).toMatchObject({ depth: 1, nested: true });
    expect(row.left, row.text).toBeGreaterThan(spawn.left);
  }
  // Only the child's rows are nested; the parent goes on at the top level after them.
  expect(rows.filter((row) => row.depth > 0 || row.nested)).toHaveLength(child.length);
  const parentAnswer = rows.findIndex((row) => /^assistant ?The helper counted 3 lines\.$/.test(row.text));
  expect(parentAnswer, shown).toBeGreaterThanOrEqual(end);
  expect(rows[parentAnswer]?.left).toBe(spawn.left);
}

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("the exported page and the live viewer draw a subagent's run one level deeper, under its call", async () => {
    const repo = join(dir, "repo");
    await mkdir(join(repo, "src"), { recursive: true });
    await writeFile(join(repo, "src", "count.txt"), "one\ntwo\nthree\n");
    server = await fakeOpenAI([
      // agent_spawn waits behind the search tool: found first, then called.
      { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
      {
        toolCalls: [
          call("s1", "agent_spawn", { agent_id: "helper", task: "count the lines of src/count.txt" }),
        ],
      },
      // The helper's own turns: it reads the file, then answers its parent.
      { toolCalls: [call("r1", "read_file", { path: "src/count.txt" })] },
      { text: "It has 3 lines." },
      { text: "The helper counted 3 lines." },
    ]);
    const url = openaiResponsesFormat.baseUrl(server.url);
    const run = await runCli(
      ["run", "count", "--session", "sub", "--provider", "openai", "--model", "m", "--base-url", url].concat([
        "--cwd",
        repo,
      ]),
      { cwd: dir, env },
    );
    expect(run.code, run.stderr).toBe(0);
    // The child really ran: its model request carried the task, and the parent got its answer.
    expect(JSON.stringify(server.requests[2]?.body)).toContain("count the lines of src/count.txt");

    const exported = await runCli(["sessions", "export", "sub", "--html", "sub.html"], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    const page = await offlinePage(browser, { height: 2400 });
    await page.goto(pathToFileURL(join(dir, "sub.html")).href);
    const drawn = await drawnRows(page);
    expectNestedUnderSpawn(drawn);
    await page.context().close();

    const live = await openView();
    const livePage = await offlinePage(browser, { origin: new URL(live).origin, height: 2400 });
    await livePage.goto(live);
    await livePage.waitForSelector("body[data-ready=true]");
    await livePage.locator("a", { hasText: /^sub$/ }).click();
    await livePage.waitForSelector(".vrow .tool-name >> text=agent_spawn");
    const liveRows = await drawnRows(livePage);
    expectNestedUnderSpawn(liveRows);
    expect(liveRows.map(({ text, depth }) => [text, depth])).toEqual(
      drawn.map(({ text, depth }) => [text, depth]),
    );
    await livePage.context().close();
  });
});
