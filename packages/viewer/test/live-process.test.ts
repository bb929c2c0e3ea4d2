// "Live" means the session's process runs: a JSONL session whose writer is a real child process is live
// while that process is alive, and stops being live when it is killed mid-run, though its run never ended.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type ViewServer } from "../src/index.js";
import { loadProjection } from "../src/load.js";
import { offlinePage } from "./browser.js";

const WRITER = fileURLToPath(new URL("./fixtures/hanging-writer.mjs", import.meta.url));
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

/** Starts the writer process and waits until its run's first events are stored. */
async function startWriter(dir: string, id: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WRITER, dir, id], {
    cwd: PACKAGE,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("recording")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before recording: ${err}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

describe("the session's process", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-viewer-live-"));
  });
  afterAll(() => cleanup?.());

  it("is running while its writer lives, and not once it was killed with its run still open", async () => {
    const storeDir = join(dir, "projection");
    const child = await startWriter(storeDir, "crash");
    const store = await JsonlSessionStore.open({ dir: storeDir });
    try {
      const alive = await loadProjection(store, "crash");
      expect(alive.view.summary.running).toBe(true);
      expect(alive.view.rows.map((row) => row.kind)).toContain("run");
      await kill(child);
      const dead = await loadProjection(store, "crash");
      expect(dead.view.summary.running).toBeUndefined();
      // The run never ended: nothing but the process's death says the session is not live.
      expect(dead.view.rows.map((row) => row.kind)).not.toContain("end");
    } finally {
      await kill(child);
      await store.close();
    }
  });
});

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`a served page in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  let server: ViewServer;
  let store: JsonlSessionStore;
  let child: ChildProcess;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const made = await tempWorkspace("bridle-viewer-live-page-");
    cleanup = made.cleanup;
    const storeDir = join(made.dir, "store");
    child = await startWriter(storeDir, "crash");
    store = await JsonlSessionStore.open({ dir: storeDir });
    server = await startViewServer({ stores: [{ name: "jsonl", store }], pollMs: 100 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    if (child) await kill(child);
    await browser?.close();
    await server?.close();
    await store?.close();
    await cleanup?.();
  });

  it('says "live" while the process runs and "not running" once it is killed, with no new event', async () => {
    const { page, blocked } = await offlinePage(browser, server.origin);
    await page.goto(`${server.url}s/jsonl/crash`);
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator("#live").textContent()).toBe(" ● live");
    await expect
      .poll(() => page.evaluate(() => document.body.dataset.following), { timeout: 60_000 })
      .toBe("true");
    await kill(child);
    await expect.poll(() => page.locator("#live").textContent(), { timeout: 60_000 }).toBe(" ○ not running");
    expect(await page.locator(".row.end").count()).toBe(0);
    expect(blocked).toEqual([]);
    await page.context().close();
  });
});
