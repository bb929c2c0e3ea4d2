// `bridle sessions export --html` and `bridle view`, as a user runs them: the built CLI in child
// processes, real stores under XDG_DATA_HOME, the pages opened in headless Chromium with every request
// outside the page (or the viewer's own origin) aborted and recorded.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { SqliteSessionStore } from "@bridle/store-sqlite";
import {
  type FakeProviderServer,
  openaiResponsesFormat,
  sampleRunEvents,
  tempWorkspace,
} from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLI, call, fakeOpenAI, NODE_FLAGS, runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;
const dataDir = () => join(dir, "data", "bridle");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-view-"));
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
  };
});
afterEach(() => cleanup());

async function seedJsonl(id: string, reply: string): Promise<void> {
  const store = await JsonlSessionStore.open({ dir: join(dataDir(), "jsonl") });
  try {
    await store.createSession({ id, title: `${id} title` });
    if (reply) await store.append(id, sampleRunEvents({ reply }));
  } finally {
    await store.close();
  }
}

async function seedSqlite(id: string, reply: string): Promise<void> {
  await mkdir(dataDir(), { recursive: true });
  const store = await SqliteSessionStore.open({ path: join(dataDir(), "sessions.sqlite") });
  try {
    await store.createSession({ id, title: `${id} title` });
    await store.append(id, sampleRunEvents({ reply }));
  } finally {
    await store.close();
  }
}

/** Blocks every request that is not to the page itself; returns what was blocked. */
async function offline(browser: Browser, origin?: string): Promise<{ page: Page; blocked: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const blocked: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:") || (origin && url.startsWith(`${origin}/`))) {
      return route.continue();
    }
    blocked.push(url);
    return route.abort("blockedbyclient");
  });
  return { page: await context.newPage(), blocked };
}

describe("bridle sessions export", () => {
  it("needs an id and --html, and a session that exists", async () => {
    await seedJsonl("s1", "hello");
    expect((await runCli(["sessions", "export", "s1"], { cwd: dir, env })).code).toBe(2);
    expect((await runCli(["sessions", "export", "--html", "x.html"], { cwd: dir, env })).code).toBe(2);
    const missing = await runCli(["sessions", "export", "nope", "--html", "x.html"], { cwd: dir, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no session "nope"');
  });

  it("writes one self-contained page of the session, relative to where it is run", async () => {
    await seedJsonl("s1", "Reading the deploy notes.");
    const run = await runCli(["sessions", "export", "s1", "--html", "out.html"], { cwd: dir, env });
    expect(run.stderr).toMatch(/wrote .*out\.html/);
    expect(run.code).toBe(0);
    const html = await readFile(join(dir, "out.html"), "utf8");
    expect(html).toContain("connect-src 'none'");
    expect(html).toContain("Reading the deploy notes.");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
  });
});

describe("bridle sessions export of a recorded run", () => {
  let server: FakeProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("carries each turn's cost from the model's price and the coding overlay's handoff", async () => {
    const repo = join(dir, "repo");
    await mkdir(repo);
    await writeFile(join(repo, "greet.js"), 'export const greet = () => "Helo";\n');
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "greet.js" })] },
      { toolCalls: [call("c2", "edit_file", { path: "greet.js", old_string: "Helo", new_string: "Hello" })] },
      { text: "Fixed the greeting." },
    ]);
    const args = [
      "run",
      "fix the greeting",
      "--session",
      "recorded",
      "--provider",
      "openai",
      "--model",
      "gpt-4.1-mini",
      "--profile",
      "generic",
      "--edit-format",
      "replace",
    ];
    const run = await runCli(
      [...args, "--base-url", openaiResponsesFormat.baseUrl(server.url), "--cwd", repo],
      {
        cwd: dir,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const exported = await runCli(["sessions", "export", "recorded", "--html", "run.html"], {
      cwd: dir,
      env,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const html = await readFile(join(dir, "run.html"), "utf8");
    const data = JSON.parse(
      /<script type="application\/json" id="bridle-view">(.*?)<\/script>/s.exec(html)?.[1] ?? "{}",
    );
    expect(data.view.summary.turns).toBe(3);
    expect(data.view.turns.every((turn: { cost?: number }) => typeof turn.cost === "number")).toBe(true);
    expect(typeof data.view.summary.cost).toBe("number");
    expect(data.view.handoff).toMatch(/^handoff: /);
    expect(data.view.handoff).toContain("greet.js");
  });
});

describe("bridle view's port", () => {
  it("refuses a port that is not one, and says when the port is taken", async () => {
    const bad = await runCli(["view", "--port", "http"], { cwd: dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--port must be 0-65535");
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const busy = await runCli(["view", "--port", String(port)], { cwd: dir, env });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`port ${port} is in use`);
    } finally {
      taken.close();
    }
  });
});

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  let view: ChildProcess | undefined;
  let server: FakeProviderServer | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());
  afterEach(async () => {
    view?.kill("SIGKILL");
    view = undefined;
    await server?.close();
    server = undefined;
  });

  it("an exported session opens offline with its turns", async () => {
    await seedJsonl("s1", "Reading the deploy notes.");
    expect((await runCli(["sessions", "export", "s1", "--html", "s1.html"], { cwd: dir, env })).code).toBe(0);
    const { page, blocked } = await offline(browser);
    await page.goto(pathToFileURL(join(dir, "s1.html")).href);
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("#summary").textContent()).toMatch(/1 run · 2 turns · 1 tool call\b/);
    expect(await page.locator(".turn").count()).toBe(2);
    expect(blocked).toEqual([]);
    await page.context().close();
  });

  /** Starts `bridle view` and resolves with the URL it prints. */
  function startView(): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...NODE_FLAGS, CLI, "view"], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      view = child;
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const url = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/)$/m.exec(out)?.[1];
        if (url) resolve(url);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString("utf8");
      });
      child.on("exit", (code) => reject(new Error(`bridle view exited ${code}: ${err}`)));
    });
  }

  it("bridle view lists the JSONL and SQLite stores' sessions and follows a run live", async () => {
    await seedJsonl("from-jsonl", "Kept in a file.");
    await seedSqlite("from-sqlite", "Kept in a database.");
    await seedJsonl("live-run", "");
    const url = await startView();
    const origin = new URL(url).origin;
    const { page, blocked } = await offline(browser, origin);
    await page.goto(url);
    await page.waitForSelector("body[data-ready=true]");
    const rows = (await page.locator("tr.session").allTextContents()).join("\n");
    expect(rows).toContain("jsonlfrom-jsonl");
    expect(rows).toContain("sqlitefrom-sqlite");
    expect(rows).toContain("jsonllive-run");

    await page.locator("a", { hasText: /^live-run$/ }).click();
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("#summary").textContent()).toContain("0 turns");

    // A real run records into the session the page shows: each bash call sleeps, so the page sees it running.
    server = await fakeOpenAI([
      { text: "Step one.", toolCalls: [call("c1", "bash", { command: "sleep 1; echo one" })] },
      { text: "Step two.", toolCalls: [call("c2", "bash", { command: "sleep 1; echo two" })] },
      { text: "Both steps done." },
    ]);
    const repo = join(dir, "repo");
    await mkdir(repo);
    await writeFile(join(repo, "README.md"), "# repo\n");
    const args = [
      "run",
      "take two steps",
      "--session",
      "live-run",
      "--provider",
      "openai",
      "--model",
      "test-model",
    ];
    const run = runCli(
      [...args, "--base-url", openaiResponsesFormat.baseUrl(server.url), "--cwd", repo, "--no-coding"],
      {
        cwd: dir,
        env,
      },
    );
    await expect.poll(() => page.locator(".call.pending").count(), { timeout: 20_000 }).toBeGreaterThan(0);
    const finished = await run;
    expect(finished.code, finished.stderr).toBe(0);
    await expect.poll(() => page.locator("#summary").textContent(), { timeout: 20_000 }).toContain("3 turns");
    await expect.poll(() => page.locator(".row.end").count(), { timeout: 20_000 }).toBe(1);
    expect(await page.locator(".row.assistant").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("Both steps done.")]),
    );
    expect(blocked).toEqual([]);

    view?.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => view?.once("exit", resolve));
    expect(code).toBe(0);
    await page.context().close();
  });
});
