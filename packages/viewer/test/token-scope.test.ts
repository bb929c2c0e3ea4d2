// The viewer's token reaches the viewer and nothing else. A browser sends a cookie for 127.0.0.1 to every
// server on 127.0.0.1 whatever its port, so a token kept in one would reach any other local server the
// browser visits. In real Chromium (fresh profile): the viewer is opened from its printed URL and its
// pages walked through (list, a session, a branch, the live event stream), then the same browser visits
// another loopback server in three ways, and that server records everything it is sent.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type ViewServer } from "../src/index.js";

const skip = chromiumSkipReason();

/** The flags the security checks run Chromium with: nothing of its own on the network, no shared state. */
const FLAGS = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

interface Received {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

describe.skipIf(skip !== undefined)(
  `the viewer's token in Chromium${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let browser: Browser;
    let server: ViewServer;
    let store: JsonlSessionStore;
    let cleanup: () => Promise<void>;
    let other: Server;
    let otherPort: number;
    const received: Received[] = [];

    beforeAll(async () => {
      const made = await tempWorkspace("bridle-viewer-token-");
      cleanup = made.cleanup;
      store = await JsonlSessionStore.open({ dir: join(made.dir, "jsonl") });
      await store.createSession({ id: "main-line", title: "the main line" });
      await store.append("main-line", sampleRunEvents({ reply: "Reading the notes." }));
      await store.fork("main-line", 2, { id: "side-line", title: "tried another way" });
      server = await startViewServer({ stores: [{ name: "jsonl", store }], pollMs: 100 });
      // Another server on loopback, as another user's or a dev server would be: it keeps what it is sent.
      other = createServer((request, response) => {
        received.push({ url: request.url ?? "", headers: request.headers });
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end("<!doctype html><title>another server</title><p>another server</p>");
      });
      await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
      otherPort = (other.address() as AddressInfo).port;
      // launch() gives every start a fresh, temporary profile (user data dir).
      browser = await launchChromium({ args: FLAGS });
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      await new Promise((resolve) => other?.close(resolve));
      await store?.close();
      await cleanup?.();
    });

    it("is never sent to another server on 127.0.0.1 or localhost after the viewer's pages were used", async () => {
      const token = new URL(server.url).pathname.split("/")[1] ?? "";
      expect(token.length).toBeGreaterThanOrEqual(32);
      const context = await browser.newContext();
      const page = await context.newPage();
      const viewerRequests: string[] = [];
      page.on("request", (request) => viewerRequests.push(request.url()));

      // The printed URL, then a session from the list, then its branch, with the live stream running.
      await page.goto(server.url);
      await page.waitForSelector("body[data-ready=true]");
      expect(await page.locator("tr.session").count()).toBe(2);
      await page.locator("a", { hasText: /^main-line$/ }).click();
      await page.waitForSelector("body[data-ready=true]");
      expect(await page.locator("h1").textContent()).toBe("the main line");
      await page.waitForSelector("body[data-following=true]", { timeout: 60_000 });
      // Its runs ended: the page follows the session but does not call it live.
      expect(await page.locator("#live").textContent()).toBe(" ○ not running");
      await page.locator(".branch a", { hasText: "side-line" }).click();
      await page.waitForSelector("body[data-ready=true]");
      expect(await page.locator("h1").textContent()).toBe("tried another way");
      // The page used its data and event routes, each under the token.
      expect(viewerRequests.some((url) => url.includes("/api/s/jsonl/main-line/events"))).toBe(true);
      expect(viewerRequests.every((url) => url.startsWith(`${server.origin}/${token}/`))).toBe(true);
      expect(await context.cookies()).toEqual([]);

      // Then the same browser meets the other server: followed from the viewer's own page (which would
      // send a Referer), and opened in new tabs by 127.0.0.1 and by localhost (which would send cookies).
      const otherUrl = `http://127.0.0.1:${otherPort}/from-the-viewer`;
      await Promise.all([page.waitForURL(otherUrl), page.evaluate((to) => location.assign(to), otherUrl)]);
      expect(await page.locator("p").textContent()).toBe("another server");
      for (const url of [`http://127.0.0.1:${otherPort}/tab`, `http://localhost:${otherPort}/tab`]) {
        const tab = await context.newPage();
        await tab.goto(url);
        await tab.close();
      }

      expect(received.map((r) => r.url)).toEqual(expect.arrayContaining(["/from-the-viewer", "/tab"]));
      expect(received.filter((r) => r.url === "/tab")).toHaveLength(2);
      for (const request of received) {
        expect(JSON.stringify(request)).not.toContain(token);
        expect(request.headers.cookie).toBeUndefined();
        // The other server's own page may name itself (its favicon request does); never the viewer.
        expect(request.headers.referer ?? "").not.toContain(server.origin);
      }
      await context.close();
    });
  },
);
