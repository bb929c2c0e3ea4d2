// A 10,000-event session: the exported page's first screen must come up in under a second (the issue's
// one speed requirement, measured inside the page with a performance mark; everything else about speed
// lives in bench/). Only a screenful of rows is in the DOM, however long the session. On a loaded machine
// the second is calibrated: a 100-event session's page, loaded in the same browser at the same time,
// says how slow the machine is right now, and a first screen that does not grow with the session stays
// within a small multiple of it.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionHtml } from "../src/index.js";
import { offlinePage, visibleTexts } from "./browser.js";
import { appendLongSession } from "./large.js";

const skip = chromiumSkipReason();
const TURNS = 2_500;

describe.skipIf(skip !== undefined)(`a 10,000-event session${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  let file: string;
  let smallFile: string;
  let events: number;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const made = await tempWorkspace("bridle-viewer-large-");
    cleanup = made.cleanup;
    const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
    events = await appendLongSession(store, "long", TURNS);
    file = join(made.dir, "long.html");
    await writeFile(file, await exportSessionHtml(store, "long"));
    await appendLongSession(store, "short", 25);
    smallFile = join(made.dir, "short.html");
    await writeFile(smallFile, await exportSessionHtml(store, "short"));
    await store.close();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await cleanup?.();
  });

  it("renders its first screen in under a second, with only a screenful of rows in the page", async () => {
    expect(events).toBeGreaterThanOrEqual(10_000);
    const { page, blocked } = await offlinePage(browser);
    // Time from navigation start to the first painted rows, as the page itself marks it. The bound is
    // the issue's (one second); on an idle machine this is a few hundred milliseconds. A shared machine
    // can stall any single load past it, so each page gets three loads and the fastest counts (a page
    // that is really slow is slow every time), and the bound grows to ten times the small page's.
    const firstScreen = async (url: string): Promise<number> => {
      const times: number[] = [];
      for (let load = 0; load < 3; load++) {
        await page.goto(url);
        await page.waitForSelector("body[data-ready=true]");
        const mark = await page.evaluate(
          () => performance.getEntriesByName("bridle:first-screen")[0]?.startTime,
        );
        expect(mark).toBeDefined();
        times.push(mark as number);
      }
      return Math.min(...times);
    };
    const small = await firstScreen(pathToFileURL(smallFile).href);
    const large = await firstScreen(pathToFileURL(file).href);
    expect(large, `first screen ${large} ms; a 100-event page's ${small} ms`).toBeLessThan(
      Math.max(1_000, 10 * small),
    );
    expect(await page.locator("#summary").textContent()).toContain(`${TURNS.toLocaleString("en-US")} turns`);
    expect(await page.locator(".vrow").count()).toBeLessThan(100);

    // The end of the list is reachable, and a result deep in it opens on demand.
    await page.locator(".scroller").evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await expect.poll(() => page.locator(".row.end").count()).toBe(1);
    const last = page.locator(".call").last();
    await last.locator("button.fold").click();
    expect(await last.locator("pre.body").last().textContent()).toContain(
      `export const value${TURNS} = ${TURNS};`,
    );

    // From the waterfall to the transcript, at either end: the list was left scrolled to its end.
    await page.locator("nav.tabs button", { hasText: "Timeline" }).click();
    await page.locator(".span.model").first().click();
    await expect.poll(() => visibleTexts(page, ".turn")).toContainEqual(expect.stringContaining("Turn 1 "));
    await page.locator("nav.tabs button", { hasText: "Timeline" }).click();
    await page.locator(".scroller").evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    // The last bar (the last call's) once the list has drawn the end.
    const lastBar = page.locator(`.span.tool[data-index="${TURNS * 2 - 1}"]`);
    await expect.poll(() => lastBar.count()).toBe(1);
    await lastBar.click();
    await expect
      .poll(() => visibleTexts(page, ".call pre.body"))
      .toContainEqual(expect.stringContaining(`export const value${TURNS} = ${TURNS};`));
    expect(blocked).toEqual([]);
    await page.context().close();
  });
});
