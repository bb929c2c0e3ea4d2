import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FolderMemory, MAX_MEMORY_CHARS, memoryTools } from "../src/index.js";
import { callTool } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
const tools = () => memoryTools(new FolderMemory(dir));

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-memory-"));
});
afterEach(() => cleanup());

it("writes a note that a later session reads back", async () => {
  const written = await callTool(tools(), "write_memory", {
    key: "project-conventions",
    content: "# Style\nUse tabs.",
  });
  expect(written.text).toBe('Saved memory "project-conventions" (17 characters).');
  expect(await readFile(join(dir, "project-conventions.md"), "utf8")).toBe("# Style\nUse tabs.");
  const read = await callTool(tools(), "read_memory", { key: "project-conventions" });
  expect(read.isError).toBe(false);
  expect(read.text).toBe("# Style\nUse tabs.");
  expect(read.details).toMatchObject({ exists: true, content: "# Style\nUse tabs." });
});

it("replaces a note under the same key", async () => {
  await callTool(tools(), "write_memory", { key: "k", content: "old" });
  expect((await callTool(tools(), "write_memory", { key: "k", content: "new" })).text).toBe(
    'Replaced memory "k" (3 characters).',
  );
  expect((await callTool(tools(), "read_memory", { key: "k" })).text).toBe("new");
});

it("reports a missing key without failing", async () => {
  const read = await callTool(tools(), "read_memory", { key: "nothing_here" });
  expect(read.isError).toBe(false);
  expect(read.text).toBe('No memory stored under "nothing_here".');
  expect(read.details).toEqual({ key: "nothing_here", exists: false, content: "" });
});

it("refuses bad keys and oversized notes, writing nothing", async () => {
  for (const key of ["../escape", "a/b", "", "k".repeat(65), "dot.md", "spa ce"]) {
    const result = await callTool(tools(), "write_memory", { key, content: "x" });
    expect(result.errorKind).toBe("InvalidInput");
  }
  expect((await callTool(tools(), "read_memory", { key: "a.b" })).errorKind).toBe("InvalidInput");
  const big = await callTool(tools(), "write_memory", {
    key: "big",
    content: "x".repeat(MAX_MEMORY_CHARS + 1),
  });
  expect(big.errorKind).toBe("InvalidInput");
  expect(await readdir(dir)).toEqual([]);
  expect((await callTool(tools(), "write_memory", { key: "k".repeat(64), content: "ok" })).isError).toBe(
    false,
  );
});

it("searches notes by content and key, best first", async () => {
  await callTool(tools(), "write_memory", {
    key: "deploy-notes",
    content: "Staging lives on host b7.\nProduction deploys need approval.",
  });
  await callTool(tools(), "write_memory", {
    key: "testing",
    content: "Run the deploy smoke test after every deploy; deploy to staging, then check staging logs.",
  });
  await callTool(tools(), "write_memory", { key: "misc", content: "Nothing relevant." });
  const result = await callTool(tools(), "memory_search", { query: "deploy staging" });
  const lines = result.text.split("\n");
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^1\. testing \(line 1\): .*\[deploy\]/);
  expect(lines[1]).toMatch(/^2\. deploy-notes \(line 2\)/);
  expect((await callTool(tools(), "memory_search", { query: "approval" })).text).toMatch(
    /^1\. deploy-notes \(line 2\)/,
  );
  const none = await callTool(tools(), "memory_search", { query: "kubernetes" });
  expect(none.text).toContain('No memory matches "kubernetes". Stored keys: ');
  expect(none.text).toContain("deploy-notes (");
});

it("says so when no notes exist at all", async () => {
  expect((await callTool(tools(), "memory_search", { query: "anything" })).text).toBe(
    'No memory matches "anything". No notes are stored yet.',
  );
});
