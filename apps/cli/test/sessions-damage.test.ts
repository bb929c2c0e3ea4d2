// A session file damaged on disk (a flipped byte mid-file, a deleted blob) is shown with a warning that
// names the entry, never as if nothing were missing.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-damage-"));
});
afterEach(() => cleanup());

async function seedSession(): Promise<string> {
  const store = await JsonlSessionStore.open({ dir: join(dir, "data", "bridle", "jsonl") });
  try {
    await store.createSession({ id: "s1" });
    await store.append("s1", sampleRunEvents({ reply: "Reading the notes now." }));
  } finally {
    await store.close();
  }
  return join(dir, "data", "bridle", "jsonl", "sessions", "s1.jsonl");
}

const show = () =>
  runCli(["sessions", "show", "s1"], { cwd: dir, env: { XDG_DATA_HOME: join(dir, "data") } });

it("an intact session shows no warning", async () => {
  await seedSession();
  const run = await show();
  expect(run.code).toBe(0);
  expect(run.stderr).toBe("");
  expect(run.stdout).toContain("Reading the notes now.");
});

it("a line damaged mid-file is reported by entry, and the rest of the session is still shown", async () => {
  const file = await seedSession();
  const lines = (await readFile(file, "utf8")).split("\n");
  // Line 0 is the header; damage the entry that holds the tool call's result (a middle line).
  const target = lines.findIndex((line) => line.includes('"tool_call_completed"'));
  expect(target).toBeGreaterThan(1);
  lines[target] = (lines[target] as string).replace('"tool_call_completed"', '"tool_call_complet\u0000d"');
  await writeFile(file, lines.join("\n"));

  const run = await show();
  expect(run.code).toBe(0);
  expect(run.stderr).toMatch(/^warning: entry \d+: /m);
  expect(run.stderr).toContain("warning: session s1 has 1 damaged entry");
  expect(run.stdout).toContain("Reading the notes now.");
});
