// A session recorded with the hashline tools and a system prompt: the page's "System prompt & tools" tab
// shows what the model was told, and the tag-addressed edit is drawn as a diff (from the diff its result
// carries, and, for a session recorded before results carried one, from the lines its read showed).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Harness, type SessionStore, type StoredEvent, sessionSink } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { chromiumSkipReason, launchChromium } from "@bridle/tooling/browser";
import { createHashlineTools, lineTag } from "@bridle/tools-edit-hashline";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSessionHtml } from "../src/index.js";
import { projectSession } from "../src/project.js";
import type { EditView } from "../src/view.js";
import { offlinePage } from "./browser.js";
import { CART_BEFORE, NEW_LINE, OLD_LINE } from "./recorded.js";

const SYSTEM = "You are Bridle's test agent.\nKeep edits small.";
const ADDED = "  // quantities count";

async function recordHashlineSession(store: SessionStore, workspace: string): Promise<string> {
  await writeFile(join(workspace, "cart.js"), CART_BEFORE);
  const id = "hashline";
  await store.createSession({ id, title: "Hashline edit" });
  const model = new ScriptedModel(
    [
      { toolCalls: [{ name: "read_file", arguments: { path: "cart.js" } }] },
      {
        toolCalls: [
          {
            name: "edit_file",
            arguments: {
              path: "cart.js",
              edits: [
                { op: "replace_line", tag: lineTag(2, OLD_LINE), new_text: NEW_LINE },
                { op: "insert_after", tag: lineTag(1, "export function total(items) {"), new_text: ADDED },
              ],
            },
          },
        ],
      },
      { text: "Done." },
    ],
    { model: "gpt-test" },
  );
  const harness = new Harness({ model, tools: [...createHashlineTools()], workspace, system: SYSTEM });
  const result = await harness.run({ prompt: "Count quantities.", sink: sessionSink(store, id) });
  expect(result.stopReason).toBe("completed");
  return id;
}

async function readAll(store: SessionStore, id: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of store.read(id)) out.push(event);
  return out;
}

/** The same events as a session recorded before edit results carried `details.diffs`. */
function withoutDiffs(stored: readonly StoredEvent[]): StoredEvent[] {
  return stored.map((entry) => {
    const event = entry.event;
    if (event.type !== "tool_call_completed" || event.result.details === undefined) return entry;
    const { diffs: _, ...details } = event.result.details as Record<string, unknown>;
    return { ...entry, event: { ...event, result: { ...event.result, details } } };
  });
}

const editOfRow = (stored: readonly StoredEvent[]): EditView => {
  const info = { id: "hashline", createdAt: 1, updatedAt: 2, lastSeq: stored.length - 1 };
  const { view, bodies } = projectSession(info, stored, []);
  const row = view.rows.find((r) => r.kind === "call" && r.name === "edit_file");
  if (row?.kind !== "call" || row.edit === undefined) throw new Error("the edit row has no diff");
  return JSON.parse(bodies[row.edit] ?? "") as EditView;
};

describe("a hashline session's projection", () => {
  let stored: StoredEvent[];
  let cleanup: () => Promise<void>;
  let after: string;

  beforeAll(async () => {
    const made = await tempWorkspace("bridle-viewer-setup-");
    cleanup = made.cleanup;
    const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
    const workspace = join(made.dir, "work");
    await mkdir(workspace);
    stored = await readAll(store, await recordHashlineSession(store, workspace));
    after = await readFile(join(workspace, "cart.js"), "utf8");
    await store.close();
  });
  afterAll(() => cleanup?.());

  it("records the system prompt and tool list once, on the first request, and lists them", () => {
    const requests = stored.flatMap(({ event }) => (event.type === "model_request" ? [event] : []));
    expect(requests.map((event) => event.setup !== undefined)).toEqual([true, false, false]);
    const info = { id: "hashline", createdAt: 1, updatedAt: 2, lastSeq: stored.length - 1 };
    const { view, bodies } = projectSession(info, stored, []);
    expect(view.setups).toHaveLength(1);
    const [setup] = view.setups;
    expect(setup?.turn).toBe(1);
    expect(bodies[setup?.system ?? -1]).toBe(SYSTEM);
    expect(setup?.tools.map((tool) => tool.name)).toEqual(["read_file", "edit_file"]);
    expect(JSON.parse(bodies[setup?.tools[1]?.schema ?? -1] ?? "")).toMatchObject({
      properties: { edits: { type: "array" } },
    });
  });

  it("draws the edit from the diff its result carries", () => {
    expect(after).toContain(ADDED);
    const edit = editOfRow(stored);
    expect(edit.kind).toBe("files");
    if (edit.kind !== "files") return;
    const [file] = edit.files;
    expect(file?.path).toBe("cart.js");
    expect(file?.hunks.flatMap((h) => h.removed)).toEqual([OLD_LINE]);
    expect(file?.hunks.flatMap((h) => h.added)).toEqual([ADDED, NEW_LINE]);
  });

  it("draws an older session's edit from the lines its read showed, tag by tag", () => {
    const edit = editOfRow(withoutDiffs(stored));
    expect(edit).toEqual({
      kind: "replace",
      path: "cart.js",
      hunks: [
        { line: 2, old: OLD_LINE, new: NEW_LINE },
        {
          line: 1,
          old: "export function total(items) {",
          new: `export function total(items) {\n${ADDED}`,
        },
      ],
    });
  });

  it("names a tag the session never showed instead of guessing its line", () => {
    const unread = withoutDiffs(stored).filter(
      ({ event }) => !(event.type === "tool_call_completed" && event.result.toolName === "read_file"),
    );
    const edit = editOfRow(unread);
    expect(edit.kind).toBe("replace");
    if (edit.kind !== "replace") return;
    expect(edit.hunks[0]).toEqual({
      old: `⟨line ${lineTag(2, OLD_LINE)}: not shown in this session⟩`,
      new: NEW_LINE,
    });
  });
});

const skip = chromiumSkipReason();

describe.skipIf(skip !== undefined)(`the setup tab in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let browser: Browser;
  let file: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const made = await tempWorkspace("bridle-viewer-setup-page-");
    cleanup = made.cleanup;
    const store = await JsonlSessionStore.open({ dir: join(made.dir, "store") });
    const workspace = join(made.dir, "work");
    await mkdir(workspace);
    const id = await recordHashlineSession(store, workspace);
    file = join(made.dir, "session.html");
    await writeFile(file, await exportSessionHtml(store, id));
    await store.close();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await cleanup?.();
  });

  it("shows the system prompt and each tool's description and schema on their own tab", async () => {
    const { page, blocked } = await offlinePage(browser);
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-ready=true]");
    await page.getByRole("button", { name: "System prompt & tools" }).click();
    expect(await page.locator(".system-prompt").textContent()).toBe(SYSTEM);
    expect(await page.locator(".tool-entry summary code").allTextContents()).toEqual([
      "read_file",
      "edit_file",
    ]);
    const edit = page.locator(".tool-entry").nth(1);
    expect(await edit.locator(".tool-schema").isVisible()).toBe(false);
    await edit.locator("summary").click();
    expect(await edit.locator(".tool-schema").textContent()).toContain('"replace_line"');
    expect(blocked).toEqual([]);
  });

  it("draws the hashline edit as removed and added lines, not as its JSON arguments", async () => {
    const { page } = await offlinePage(browser);
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-ready=true]");
    const row = page.locator(".row.call", { hasText: "edit_file" });
    await row.locator("button.fold").click();
    const diff = row.locator(".diff");
    await diff.waitFor();
    expect(await diff.locator(".dl.del").allTextContents()).toEqual([`-${OLD_LINE}`]);
    expect(await diff.locator(".dl.add").allTextContents()).toEqual([`+${ADDED}`, `+${NEW_LINE}`]);
  });
});
