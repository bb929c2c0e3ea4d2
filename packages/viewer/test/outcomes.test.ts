// Failures a run's tools reported as successes (a command that exited 1), the coding overlay's facts as
// readable rows, subagents nested under their call, and "live" only while a run goes: the projection,
// then the exported page in real Chromium.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RunEvent, StoredEvent } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionHtml } from "../src/index.js";
import { projectSession } from "../src/project.js";
import { offlinePage } from "./browser.js";
import { FAILING_OUTPUT, outcomeEvents } from "./outcomes.js";

const info = { id: "s", createdAt: 1, updatedAt: 2, lastSeq: 0 };
const stored = (open = false): StoredEvent[] =>
  outcomeEvents({ open }).map((event, sessionSeq) => ({ sessionSeq, event }));

describe("the projection", () => {
  it("draws a command that exited 1 as a failed call, and counts it among the failures", () => {
    const { view } = projectSession(info, stored(), []);
    const bash = view.rows.find((row) => row.kind === "call" && row.name === "bash");
    expect(bash).toMatchObject({ status: "failed", errorKind: "exit 1" });
    expect(view.summary.failedCalls).toBe(1);
    expect(view.spans.find((span) => span.label === "bash")).toMatchObject({ failed: true });
    const task = view.rows.find((row) => row.kind === "call" && row.name === "task");
    expect(task).toMatchObject({ status: "ok" });
  });

  it("marks the failing check and command facts, and writes every fact as name: value lines", () => {
    const { view, bodies } = projectSession(info, stored(), []);
    const facts = view.rows.flatMap((row) => (row.kind === "fact" ? [row] : []));
    expect(facts.map((fact) => [fact.factKind, fact.failed ?? false])).toEqual([
      ["coding.command", true],
      ["coding.check", true],
      ["coding.changes", false],
    ]);
    const [command, check, changes] = facts.map((fact) => bodies[fact.body]);
    expect(command).toBe("command: npm test\nexitCode: 1");
    expect(check).toBe(
      `kind: test\nstatus: failed\ncommand: npm test\noutput:\n${FAILING_OUTPUT.trimEnd()
        .split("\n")
        .map((line) => `    ${line}`)
        .join("\n")}`,
    );
    expect(changes).toBe("files:\n  - path: src/cart.js · added: 3 · removed: 1\nflags: none");
    for (const text of [command, check, changes]) expect(text).not.toMatch(/^\s*[{[]/);
  });

  it("puts a subagent's rows one level deep, between its call and the call's result", () => {
    const { view } = projectSession(info, stored(), []);
    const callAt = view.rows.findIndex((row) => row.kind === "call" && row.name === "task");
    const nested = view.rows.flatMap((row, index) => ((row.depth ?? 0) > 0 ? [index] : []));
    expect(nested.length).toBeGreaterThanOrEqual(3);
    expect(nested.every((index) => index > callAt)).toBe(true);
    expect(view.rows.filter((row) => (row.depth ?? 0) > 0).map((row) => row.kind)).toEqual([
      "run",
      "user",
      "turn",
      "assistant",
      "end",
    ]);
    expect(view.rows.filter((row) => row.kind === "call").every((row) => row.depth === undefined)).toBe(true);
  });

  it("shows a provider retry as a notice with its attempt, wait and cause", () => {
    const events = outcomeEvents();
    const retry = {
      ...events[0],
      type: "model_retry",
      attempt: 2,
      maxAttempts: 5,
      delayMs: 400,
      error: { code: "server", message: "500 upstream exploded", retryable: true, status: 500 },
    } as RunEvent;
    const all = [events[0], retry, ...events.slice(1)] as RunEvent[];
    const { view } = projectSession(
      info,
      all.map((event, sessionSeq) => ({ sessionSeq, event })),
      [],
    );
    expect(
      view.rows.filter((row) => row.kind === "notice").map((row) => row.kind === "notice" && row.text),
    ).toEqual(["provider retry 2/5 after 400 ms: server 500: 500 upstream exploded"]);
  });

  it("is running only while a run has started and not ended", () => {
    expect(projectSession(info, stored(true), []).view.summary.running).toBe(true);
    expect(projectSession(info, stored(false), []).view.summary.running).toBeUndefined();
  });
});

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`the page in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  let file: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const made = await tempWorkspace("bridle-viewer-outcomes-");
    cleanup = made.cleanup;
    const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
    const { id } = await store.createSession({ id: "outcomes", title: "Run the tests" });
    await store.append(id, outcomeEvents());
    const html = await exportSessionHtml(store, id);
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
    return offline.page;
  }

  it("draws the exit-1 bash call and the failing facts in the failure colour, and the rest not", async () => {
    const page = await open();
    const bash = page.locator(".row.call", { hasText: "npm test" });
    await expect.poll(() => bash.getAttribute("class")).toContain("failed");
    expect(await bash.textContent()).toContain("exit 1");
    const colour = (locator: ReturnType<typeof page.locator>) =>
      locator.evaluate((el) => getComputedStyle(el.querySelector(".tool-name") ?? el).color);
    const task = page.locator(".row.call", { hasText: "find the tests" });
    expect(await colour(bash)).not.toBe(await colour(task));
    const check = page.locator(".row.fact", { hasText: "test check failed" });
    expect(await check.getAttribute("class")).toContain("failed");
    const changes = page.locator(".row.fact", { hasText: "file(s) changed" });
    expect(await changes.getAttribute("class")).not.toContain("failed");
    expect(await colour(check)).toBe(await colour(bash.locator(".tool-name")));
  });

  it("counts the exit-1 call among its tool's failures in the usage tab", async () => {
    const page = await open();
    await page.locator("nav.tabs button", { hasText: "Usage" }).click();
    const bash = page.locator(".tools-table tr", { hasText: "bash" });
    expect((await bash.locator("td").allTextContents()).slice(0, 3)).toEqual(["bash", "1", "1"]);
  });

  it("lists them under 'failures only'", async () => {
    const page = await open();
    await page.locator("#failures-only").check();
    await expect
      .poll(async () => (await page.locator(".row").allTextContents()).join("\n"))
      .toContain("exit 1");
    const shown = (await page.locator(".row").allTextContents()).join("\n");
    expect(shown).toContain("test check failed");
    expect(shown).not.toContain("file(s) changed");
  });

  it("opens a fact to readable lines, not JSON", async () => {
    const page = await open();
    await page.locator(".row.fact", { hasText: "test check failed" }).locator("button.fold").first().click();
    const text = await page.locator(".row.fact pre").first().textContent();
    expect(text).toContain("status: failed");
    expect(text).toContain("    total counts quantity");
    expect(text).not.toContain('"status"');
  });

  it("indents the subagent's rows under its call", async () => {
    const page = await open();
    const call = page.locator(".row.call", { hasText: "find the tests" });
    const nested = page.locator(".row.nested", { hasText: "The tests are in test/cart.test.js." });
    await expect.poll(() => nested.count()).toBe(1);
    const left = (locator: ReturnType<typeof page.locator>) =>
      locator.evaluate((el) => el.getBoundingClientRect().left);
    expect(await left(nested)).toBeGreaterThan(await left(call));
    const callY = await call.evaluate((el) => el.getBoundingClientRect().top);
    const nestedY = await nested.evaluate((el) => el.getBoundingClientRect().top);
    expect(nestedY).toBeGreaterThan(callY);
  });
});
