// The viewer server in Chromium: two stores' sessions listed, one opened, a fork's branch followed, and a
// run followed live while it records, with every request outside the server aborted and recorded.
import { join } from "node:path";
import { Harness, sessionSink } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { SqliteSessionStore } from "@bridle/store-sqlite";
import { ScriptedModel, sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type ViewServer } from "../src/index.js";
import { offlinePage, pixelStats, visibleTexts } from "./browser.js";

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(
  `bridle view's server in Chromium${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let browser: Browser;
    let server: ViewServer;
    let jsonl: JsonlSessionStore;
    let sqlite: SqliteSessionStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const made = await tempWorkspace("bridle-viewer-server-");
      cleanup = made.cleanup;
      jsonl = await JsonlSessionStore.open({ dir: join(made.dir, "jsonl") });
      sqlite = await SqliteSessionStore.open({ path: join(made.dir, "sessions.sqlite") });
      await jsonl.createSession({ id: "from-jsonl", title: "kept in files" });
      await jsonl.append("from-jsonl", sampleRunEvents({ reply: "Reading the notes." }));
      await sqlite.createSession({ id: "from-sqlite", title: "kept in sqlite" });
      await sqlite.append("from-sqlite", sampleRunEvents({ reply: "Looking at the database." }));
      await sqlite.fork("from-sqlite", 2, { id: "sqlite-branch", title: "tried another way" });
      server = await startViewServer({
        stores: [
          { name: "jsonl", store: jsonl },
          { name: "sqlite", store: sqlite },
        ],
        pollMs: 100,
      });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await jsonl?.close();
      await sqlite?.close();
      await cleanup?.();
    });

    it("lists both stores' sessions, and opens one in the viewer", async () => {
      const { page, blocked, violations } = await offlinePage(browser, server.origin);
      await page.goto(server.url);
      await page.waitForSelector("body[data-ready=true]");
      // The token stays in the path: no cookie carries it.
      expect(page.url()).toBe(server.url);
      const rows = await page.locator("tr.session").allInnerTexts();
      expect(rows).toHaveLength(3);
      expect(rows.join("\n")).toMatch(/jsonl\s+from-jsonl\s+kept in files/);
      expect(rows.join("\n")).toMatch(/sqlite\s+from-sqlite\s+kept in sqlite/);
      expect(rows.join("\n")).toMatch(/sqlite-branch.*fork of from-sqlite at 2/);
      expect((await pixelStats(browser, await page.screenshot())).inked).toBeGreaterThan(0.005);

      await page.locator("a", { hasText: "from-jsonl" }).click();
      await page.waitForSelector("body[data-ready=true]");
      expect(await page.locator("h1").textContent()).toBe("kept in files");
      expect((await visibleTexts(page, ".row.assistant")).join("\n")).toContain("Reading the notes.");
      expect(blocked).toEqual([]);
      expect(await violations()).toEqual([]);
      await page.context().close();
    });

    it("shows a session's branches and goes to one", async () => {
      const { page, blocked } = await offlinePage(browser, server.origin);
      await page.goto(server.url);
      await page.locator("a", { hasText: /^from-sqlite$/ }).click();
      await page.waitForSelector("body[data-ready=true]");
      const branches = page.locator(".branch");
      expect(await branches.textContent()).toContain("branches (1): sqlite-branch at 2");
      expect(await page.locator(".branch-mark").textContent()).toContain(
        "branch sqlite-branch “tried another way” forks here",
      );
      await branches.locator("a", { hasText: "sqlite-branch" }).click();
      await page.waitForSelector("body[data-ready=true]");
      expect(await page.locator("h1").textContent()).toBe("tried another way");
      expect(await page.locator(".branch").textContent()).toBe("fork of from-sqlite at event 2");
      expect(await page.locator(".branch-mark").textContent()).toContain("forked from from-sqlite here");
      expect(blocked).toEqual([]);
      await page.context().close();
    });

    it("follows a run while it records", async () => {
      await sqlite.createSession({ id: "live", title: "running now" });
      const { page, blocked } = await offlinePage(browser, server.origin);
      await page.goto(server.url);
      await page.locator("a", { hasText: /^live$/ }).click();
      await page.waitForSelector("body[data-ready=true]");
      expect(await page.locator("#summary").textContent()).toContain("0 turns");
      // Nothing runs in the session yet: the page follows it, but does not call it live.
      expect(await page.locator("#live").textContent()).toBe(" ○ not running");

      const turns = [1, 2, 3].map((n) => ({
        text: `Working on step ${n}.`,
        ...(n < 3 ? { toolCalls: [{ name: "note", arguments: { step: n } }] } : {}),
        // Slow enough turns that the page sees the run going before it ends.
        delayMs: 400,
      }));
      const harness = new Harness({ model: new ScriptedModel(turns), tools: [] });
      const run = harness.run({ prompt: "Take three steps.", sink: sessionSink(sqlite, "live") });
      await expect.poll(() => page.locator("#live").textContent(), { timeout: 60_000 }).toBe(" ● live");
      // The page learns of each new event over the event stream and redraws; it was at the end, so it stays there.
      await expect
        .poll(() => page.locator("#summary").textContent(), { timeout: 60_000 })
        .toContain("3 turns");
      await run;
      await expect.poll(() => page.locator(".row.end").count(), { timeout: 60_000 }).toBe(1);
      expect((await visibleTexts(page, ".row.assistant")).join("\n")).toContain("Working on step 3.");
      expect(blocked).toEqual([]);
      // The run ended: the session is no longer live, though the page still follows it.
      await expect
        .poll(() => page.locator("#live").textContent(), { timeout: 60_000 })
        .toBe(" ○ not running");
      // The server stops: the page says it is no longer following.
      await server.close();
      await expect
        .poll(() => page.locator("#live").textContent(), { timeout: 60_000 })
        .toBe(" ○ reconnecting");
      await page.context().close();
    });
  },
);
