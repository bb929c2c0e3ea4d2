// The Explicit Edit Benchmark adapter, against a checkout laid out as the benchmark's is (its generator at
// src/suites/explicit-edit/fixtures.ts, loaded with Node's TypeScript support) holding our own small tasks
// of its kinds: no copy of the benchmark is stored here. Check mode plays each task's reference edit
// through every edit format's real tools and verifies the tree byte for byte.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, openaiChatFormat } from "@bridle/testing";
import { afterAll, beforeAll, expect, test } from "vitest";
import { EDIT_FORMATS } from "../src/edit-format/edits.js";
import { explicitEditCommand } from "../src/explicit-edit/command.js";
import { runExplicitEditTask } from "../src/explicit-edit/run.js";
import { FIXTURES_MODULE, loadExplicitEditTasks } from "../src/explicit-edit/tasks.js";
import { compareTree, writeTree } from "../src/explicit-edit/tree.js";
import { providerModel } from "../src/models.js";
import { parseResultLines } from "../src/result.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/explicit-edit-fixtures.ts", import.meta.url));
let root: string;
let checkout: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "bridle-explicit-edit-test-"));
  checkout = join(root, "explicit-edit-benchmark");
  await mkdir(join(checkout, "src/suites/explicit-edit"), { recursive: true });
  await copyFile(FIXTURES, join(checkout, FIXTURES_MODULE));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test("a checkout's tasks load with their input and expected trees as bytes", async () => {
  const tasks = await loadExplicitEditTasks(checkout);
  expect(tasks.map((task) => task.id)).toContain("replace-10-crlf");
  const crlf = tasks.find((task) => task.id === "replace-10-crlf");
  expect(crlf?.input.get("dos.txt")?.toString("utf8")).toBe("alpha\r\nbeta\r\ndelta\r\n");
  expect(crlf?.expected.get("dos.txt")?.toString("utf8")).toBe("alpha\r\ngamma\r\ndelta\r\n");
});

test("check mode: every reference edit goes through every format and the trees match byte for byte", async () => {
  const tasks = await loadExplicitEditTasks(checkout);
  const failures: string[] = [];
  for (const format of EDIT_FORMATS) {
    for (const task of tasks) {
      const line = await runExplicitEditTask(task, { format });
      if (!line.pass) failures.push(`${format} ${task.id}: ${(line.notes ?? []).join(" | ")}`);
      else expect(line.editCalls ?? 0, `${format} ${task.id}`).toBeGreaterThan(0);
    }
  }
  expect(failures).toEqual([]);
});

test("the verifier fails a tree the edit did not reach, an extra file, a missing one and one changed byte", async () => {
  const dir = join(root, "verify");
  await mkdir(dir);
  await writeTree(dir, new Map([["a.txt", Buffer.from("one\n")]]));
  await writeFile(join(dir, "extra.txt"), "x");
  const differences = await compareTree(
    dir,
    new Map([
      ["a.txt", Buffer.from("one\r\n")],
      ["b.txt", Buffer.from("two\n")],
    ]),
  );
  expect(differences).toEqual([
    "changed a.txt (first difference on line 1, trailing line breaks only)",
    "missing b.txt",
    "extra extra.txt",
  ]);
});

test("the command writes results and a report, and a JSON task list works as well as a checkout", async () => {
  const tasks = await loadExplicitEditTasks(checkout);
  const json = join(root, "tasks.json");
  const one = tasks.find((task) => task.id === "replace-10-unicode");
  await writeFile(
    json,
    JSON.stringify([
      {
        id: one?.id,
        prompt: one?.prompt,
        input: Object.fromEntries(
          [...(one?.input ?? [])].map(([path, bytes]) => [path, bytes.toString("utf8")]),
        ),
        expected: Object.fromEntries(
          [...(one?.expected ?? [])].map(([path, bytes]) => [path, { base64: bytes.toString("base64") }]),
        ),
      },
    ]),
  );
  const out = join(root, "out", "results.jsonl");
  expect(await explicitEditCommand([json, "--format", "replace,apply_patch", "--out", out])).toBe(0);
  const lines = parseResultLines(await readFile(out, "utf8"));
  expect(lines.map((line) => [line.format, line.taskId, line.pass, line.script])).toEqual(
    expect.arrayContaining([
      ["replace", "replace-10-unicode", true, "reference"],
      ["apply_patch", "replace-10-unicode", true, "reference"],
    ]),
  );
  expect(await readFile(join(root, "out", "report.html"), "utf8")).toContain("replace-10-unicode");
});

test("a folder that is no checkout, and a task id it lacks, are refused saying what is wrong", async () => {
  await expect(loadExplicitEditTasks(root)).rejects.toThrow(/no src\/suites\/explicit-edit\/fixtures\.ts/);
  await expect(
    explicitEditCommand([checkout, "--task", "no-such-task", "--out", join(root, "x.jsonl")]),
  ).rejects.toThrow(/no task no-such-task/);
  await expect(explicitEditCommand([checkout, "--format", "diff"])).rejects.toThrow(/--format takes/);
});

test("live mode: the task's prompt goes to a provider (a loopback server speaking Chat Completions), the agent's edit is verified", async () => {
  const server = await FakeProviderServer.start();
  try {
    const task = (await loadExplicitEditTasks(checkout)).find((t) => t.id === "replace-one-10-plain");
    if (!task) throw new Error("fixture task missing");
    const read = { id: "call_1", name: "read_file", arguments: JSON.stringify({ path: "list.txt" }) };
    const edit = {
      id: "call_2",
      name: "edit_file",
      arguments: JSON.stringify({ path: "list.txt", old_string: "item 7\n", new_string: "item seven\n" }),
    };
    server.enqueue(
      { kind: "stream", events: openaiChatFormat.events({ toolCalls: [read] }) },
      { kind: "stream", events: openaiChatFormat.events({ toolCalls: [edit] }) },
      { kind: "stream", events: openaiChatFormat.events({ text: "Replaced item 7." }) },
    );
    const choice = {
      provider: "openai-chat",
      model: "gpt-4.1-mini",
      baseUrl: openaiChatFormat.baseUrl(server.url),
    };
    const model = await providerModel(choice, { ...process.env, OPENAI_API_KEY: "test-key" });
    const line = await runExplicitEditTask(task, {
      format: "replace",
      model,
      provider: "openai-chat",
      modelName: "gpt-4.1-mini",
      sandbox: "off",
    });
    expect(line.notes).toEqual([]);
    expect([line.pass, line.script, line.editCalls]).toEqual([true, "live", 1]);
    // The prompt the model got is the benchmark's.
    expect(JSON.stringify(server.requests[0]?.body)).toContain("item seven");
  } finally {
    await server.close();
  }
});
