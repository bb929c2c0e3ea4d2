// A recorded session exported to one HTML file, opened in headless Chromium with the network cut off.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildEvidence, formatHandoff, handoffOutcome } from "@bridle/coding";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionHtml } from "../src/index.js";
import { offlinePage, pixelStats, visibleTexts } from "./browser.js";
import { NEW_LINE, OLD_LINE, RECORDED, REFUSAL, recordSession } from "./recorded.js";

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(
  `an exported session in Chromium${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let browser: Browser;
    let file: string;
    let html: string;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const made = await tempWorkspace("bridle-viewer-export-");
      cleanup = made.cleanup;
      const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
      const workspace = join(made.dir, "work");
      await import("node:fs/promises").then((fs) => fs.mkdir(workspace));
      const id = await recordSession(store, workspace);
      // The CLI's handoff: the coding overlay's summary, built from the session's events.
      html = await exportSessionHtml(store, id, {
        handoff: (events) => formatHandoff(buildEvidence(events), handoffOutcome(events)),
      });
      await store.close();
      file = join(made.dir, "session.html");
      await writeFile(file, html);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await cleanup?.();
    });

    async function open() {
      const offline = await offlinePage(browser);
      await offline.page.goto(pathToFileURL(file).href);
      await offline.page.waitForSelector("body[data-ready=true]");
      return offline;
    }

    it("is one file that names nothing outside itself", () => {
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/i);
      expect(html).toContain("connect-src 'none'");
    });

    it("opens with no network request, and shows the session's runs and turns", async () => {
      const { page, blocked, violations } = await open();
      const summary = await page.locator("#summary").textContent();
      expect(summary).toContain(`${RECORDED.runs} runs`);
      expect(summary).toContain(`${RECORDED.turns} turns`);
      expect(summary).toContain(`${RECORDED.toolCalls} tool calls (${RECORDED.failed} failed)`);
      expect(await page.locator("h1").textContent()).toBe("Fix the cart total");
      // The whole small session fits in the list: one header per turn.
      expect(await page.locator(".turn").count()).toBe(RECORDED.turns);
      expect(blocked).toEqual([]);
      expect(await violations()).toEqual([]);
      await page.context().close();
    });

    it("folds tool calls and reasoning; a click opens the result, another closes it", async () => {
      const { page } = await open();
      const failed = page.locator(".call.error", { hasText: "missing.txt" });
      expect(await failed.textContent()).toContain("NotFound");
      expect(await page.locator("pre.body").count()).toBe(0);
      await failed.locator("button.fold").click();
      expect(await failed.locator("pre.body").last().textContent()).toMatch(
        /not found|does not exist|no such/i,
      );
      await failed.locator("button.fold").click();
      expect(await failed.locator("pre.body").count()).toBe(0);

      const reasoning = page.locator(".row.reasoning");
      expect(await reasoning.locator("pre").count()).toBe(0);
      await reasoning.locator("button.fold").click();
      expect(await reasoning.locator("pre").textContent()).toContain(
        "I should read cart.js before editing it.",
      );
      await page.context().close();
    });

    it("shows an edit as a diff of the lines it changed, and a written file as additions", async () => {
      const { page } = await open();
      const edit = page.locator(".call", { hasText: "edit_file" });
      await edit.locator("button.fold").click();
      expect(await edit.locator(".dl.del").allInnerTexts()).toContain(`-${OLD_LINE}`);
      expect(await edit.locator(".dl.add").allInnerTexts()).toContain(`+${NEW_LINE}`);
      // edit_file's details give the line: the hunk header names line 2 of cart.js.
      expect(await edit.locator(".dl.hdr").allInnerTexts()).toEqual(
        expect.arrayContaining(["--- cart.js", expect.stringMatching(/^@@ -[12],\d+ \+[12],\d+ @@$/)]),
      );
      const write = page.locator(".call", { hasText: "write_file" });
      await write.locator("button.fold").click();
      expect(await write.locator(".dl.add").allInnerTexts()).toContain("+total now counts quantity");
      await page.context().close();
    });

    it("shows the approval asked and refused, and the refusal on the call without opening it", async () => {
      const { page } = await open();
      const approval = page.locator(".row.approval");
      expect(await approval.count()).toBe(1);
      expect(await approval.textContent()).toBe(`approval: write_file NOTES.md → rejected (${REFUSAL})`);
      const write = page.locator(".call", { hasText: "write_file" });
      expect(await write.locator(".decision").textContent()).toContain(REFUSAL);
      expect(await write.textContent()).toContain("Denied");
      await page.context().close();
    });

    it("keeps the evidence handoff folded under the header", async () => {
      const { page } = await open();
      const handoff = page.locator("details.handoff");
      expect(await handoff.getAttribute("open")).toBeNull();
      expect(await handoff.locator("pre").isVisible()).toBe(false);
      await handoff.locator("summary").click();
      expect(await handoff.locator("pre").isVisible()).toBe(true);
      expect(await handoff.locator("pre").textContent()).toMatch(/^handoff: (DONE|FAILED|UNVERIFIED) /);
      await page.context().close();
    });

    it("draws the waterfall: one bar per model turn and tool call, tokens beside each turn", async () => {
      const { page } = await open();
      await page.locator("nav.tabs button", { hasText: "Timeline" }).click();
      expect(await page.locator(".span.model").count()).toBe(RECORDED.turns);
      expect(await page.locator(".span.tool").count()).toBe(RECORDED.toolCalls);
      expect(await page.locator(".span.model .span-meta").first().textContent()).toContain(
        "1,200 in / 40 out",
      );
      expect(await page.locator(".bar.failed").count()).toBe(RECORDED.failed);
      // A bar leads to its call in the transcript, opened.
      await page.locator(".span.tool", { hasText: "edit_file" }).click();
      const edit = page.locator(".call", { hasText: "edit_file" });
      await expect.poll(() => edit.locator(".dl.add").allTextContents()).toContain(`+${NEW_LINE}`);
      await page.context().close();
    });

    it("sums time and tokens per tool and per model", async () => {
      const { page } = await open();
      await page.locator("nav.tabs button", { hasText: "Usage" }).click();
      const tools = await page
        .locator(".tools-table tbody tr")
        .evaluateAll((rows) =>
          rows.map((row) => [...row.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)),
        );
      expect(tools).toEqual(
        expect.arrayContaining([
          ["read_file", "3", "1"],
          ["edit_file", "1", "0"],
          ["write_file", "1", "1"],
        ]),
      );
      expect(tools).toHaveLength(3);
      const models = await page.locator(".models-table tbody tr").allTextContents();
      expect(models).toHaveLength(1);
      expect(models[0]).toContain("gpt-test6");
      expect(models[0]).toContain("10,400");
      await page.context().close();
    });

    it("shows markup in a session as text: nothing in it runs or loads", async () => {
      const made = await tempWorkspace("bridle-viewer-markup-");
      try {
        const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
        const hostile =
          '<img src="http://evil.example/x.png" onerror="window.__pwned=1"></script><script>window.__pwned=2</script><!--';
        await store.createSession({ id: "hostile", title: "</title><script>window.__pwned=3</script>" });
        await store.append("hostile", sampleRunEvents({ reply: hostile, toolOutput: hostile }));
        const page = join(made.dir, "hostile.html");
        await writeFile(page, await exportSessionHtml(store, "hostile"));
        await store.close();
        const offline = await offlinePage(browser);
        await offline.page.goto(pathToFileURL(page).href);
        await offline.page.waitForSelector("body[data-ready=true]");
        await offline.page.locator(".call button.fold").click();
        expect(await offline.page.locator(".row.assistant").first().textContent()).toContain(hostile);
        expect(await offline.page.locator(".call pre.body").last().textContent()).toBe(hostile);
        expect(await offline.page.title()).toContain("</title><script>");
        expect(await offline.page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
        expect(await offline.page.locator("img").count()).toBe(0);
        expect(offline.blocked).toEqual([]);
        await offline.page.context().close();
      } finally {
        await made.cleanup();
      }
    });

    it("narrows the transcript to matching rows, or to what went wrong", async () => {
      const { page } = await open();
      await page.locator('input[type="search"]').fill("edit_file");
      await expect.poll(() => page.locator(".vrow").count()).toBe(1);
      expect(await page.locator(".vrow").textContent()).toContain("edit_file cart.js");
      await page.locator('input[type="search"]').fill("");
      await page.locator("#failures-only").check();
      await expect.poll(() => page.locator(".vrow").count()).toBe(3);
      const wrong = (await page.locator(".vrow").allTextContents()).join("\n");
      expect(wrong).toContain("missing.txt");
      expect(wrong).toContain(`approval: write_file NOTES.md → rejected (${REFUSAL})`);
      expect(wrong).toContain("write_file NOTES.md");
      // A row opened while filtered stays opened when the filter goes.
      await page.locator(".call", { hasText: "missing.txt" }).locator("button.fold").click();
      await page.locator("#failures-only").uncheck();
      await expect.poll(() => page.locator(".turn").count()).toBe(RECORDED.turns);
      expect(await page.locator(".call", { hasText: "missing.txt" }).locator("pre.body").count()).toBe(2);
      await page.context().close();
    });

    it("carries a session's branches and its fork parent, shown in the same page", async () => {
      const made = await tempWorkspace("bridle-viewer-tree-");
      try {
        const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
        await store.createSession({ id: "trunk", title: "first attempt" });
        await store.append("trunk", sampleRunEvents({ reply: "Trying the obvious fix." }));
        await store.fork("trunk", 1, { id: "retry", title: "second attempt" });
        await store.append(
          "retry",
          sampleRunEvents({
            runId: "run-2",
            reply: "Trying another way.",
            toolOutput: "the branch's own notes",
          }),
        );
        const file = join(made.dir, "trunk.html");
        await writeFile(file, await exportSessionHtml(store, "trunk"));
        await store.close();
        const { page, blocked } = await offlinePage(browser);
        await page.goto(pathToFileURL(file).href);
        await page.waitForSelector("body[data-ready=true]");
        expect(await page.locator("h1").textContent()).toBe("first attempt");
        await page.locator(".branch button.session-link", { hasText: "retry" }).click();
        await expect.poll(() => page.locator("h1").textContent()).toBe("second attempt");
        expect((await page.locator(".row.assistant").allTextContents()).join("\n")).toContain(
          "Trying another way.",
        );
        const call = page.locator(".call").last();
        await call.locator("button.fold").click();
        expect(await call.locator("pre.body").last().textContent()).toBe("the branch's own notes");
        await page.locator(".branch button.session-link", { hasText: "trunk" }).click();
        await expect.poll(() => page.locator("h1").textContent()).toBe("first attempt");
        expect(blocked).toEqual([]);
        await page.context().close();
      } finally {
        await made.cleanup();
      }
    });

    it("renders a screenshot with the transcript on screen", async () => {
      const { page } = await open();
      const texts = await visibleTexts(page, ".turn, .row.user, .row.assistant");
      expect(texts.some((t) => t.includes("Turn 1"))).toBe(true);
      expect(texts.some((t) => t.includes("The cart total ignores quantities. Fix it."))).toBe(true);
      const stats = await pixelStats(browser, await page.screenshot());
      expect(stats.inked).toBeGreaterThan(0.01);
      expect(stats.colours).toBeGreaterThan(8);
      await page.context().close();
    });
  },
);
