import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@bridle/core";
import { afterEach, describe, expect, it } from "vitest";
import { buildEvidence, FACT, formatHandoff, handoffOutcome } from "../src/index.js";
import { type Agent, call, codingAgent, gitIn, tempRepo, writeFiles } from "./repo.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function setup(files: Record<string, string>, options: { git?: boolean } = {}) {
  const repo = await tempRepo(files, options);
  cleanups.push(repo.cleanup);
  return repo.dir;
}

async function agentIn(
  dir: string,
  ...args: Parameters<typeof codingAgent> extends [string, ...infer R] ? R : never
) {
  const agent: Agent = await codingAgent(dir, ...args);
  cleanups.push(() => agent.close());
  return agent;
}

function facts(events: readonly RunEvent[], kind: string): unknown[] {
  return events.flatMap((event) => (event.type === "fact" && event.kind === kind ? [event.data] : []));
}

describe("baseline and the agent's own diff", () => {
  it("lists the user's uncommitted edit as pre-existing, leaves it byte-identical, and counts bash writes", async () => {
    const dir = await setup({ "a.txt": "one\ntwo\n", "b.txt": "alpha\nbeta\n", "c.txt": "c\n" });
    // The user's work before the run: an unstaged edit, a staged file, an untracked file.
    await writeFiles(dir, { "a.txt": "one\ntwo (user)\n", "staged.txt": "s\n", "notes.md": "mine\n" });
    gitIn(dir, "add", "staged.txt");
    const userBytes = await readFile(join(dir, "a.txt"));
    const agent = await agentIn(dir, [
      call("git_status", {}),
      call("bash", { command: "sed -i 's/beta/BETA/' b.txt" }),
      call("bash", { command: "echo fresh > new.txt" }),
      { text: "done" },
    ]);
    const { events, result } = await agent.run("uppercase beta in b.txt and add new.txt");
    expect(result.stopReason).toBe("completed");
    const evidence = buildEvidence(events);
    expect(evidence.task).toBe("uppercase beta in b.txt and add new.txt");
    expect([...evidence.preexistingChanges].sort()).toEqual(["a.txt", "notes.md", "staged.txt"]);
    expect(evidence.filesChanged).toEqual([
      { path: "b.txt", added: 1, removed: 1 },
      { path: "new.txt", added: 1, removed: 0 },
    ]);
    expect(evidence.commands).toEqual([
      { command: "sed -i 's/beta/BETA/' b.txt", exitCode: 0 },
      { command: "echo fresh > new.txt", exitCode: 0 },
    ]);
    expect((await readFile(join(dir, "a.txt"))).equals(userBytes)).toBe(true);
    // The baseline is taken while the first request is in flight, and recorded once the first tool
    // call has waited for it: after that request, before any tool ran.
    const at = (found: number) => (found < 0 ? Number.NaN : found);
    const baseline = at(events.findIndex((e) => e.type === "fact" && e.kind === FACT.baseline));
    const firstRequest = at(events.findIndex((e) => e.type === "model_request"));
    const firstTool = at(events.findIndex((e) => e.type === "tool_call_completed"));
    expect(firstRequest).toBeLessThan(baseline);
    expect(baseline).toBeLessThan(firstTool);
    expect(facts(events, FACT.baseline)).toHaveLength(1);
    expect(facts(events, FACT.baseline)[0]).toMatchObject({ repository: "git", branch: "main" });
    // git_status told the model whose changes are whose.
    const status = events.find((e) => e.type === "tool_call_completed" && e.result.toolName === "git_status");
    expect(JSON.stringify(status)).toContain("user's changes before this run (3)");
  });

  it("records the baseline of a run that calls no tool, once, when it ends", async () => {
    const dir = await setup({ "a.txt": "a\n" });
    await writeFiles(dir, { "a.txt": "a (user)\n" });
    const agent = await agentIn(dir, [{ text: "nothing to do" }]);
    const { events, result } = await agent.run("look");
    expect(result.stopReason).toBe("completed");
    expect(facts(events, FACT.baseline)).toHaveLength(1);
    expect(buildEvidence(events).preexistingChanges).toEqual(["a.txt"]);
  });

  it("counts only the agent's hunks in a file the user had already modified", async () => {
    const dir = await setup({ "a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n" });
    await writeFiles(dir, { "a.txt": "1 user\n2\n3\n4\n5\n6\n7\n8\n9\n10\n" });
    const agent = await agentIn(dir, [
      call("bash", { command: "echo 11 >> a.txt" }),
      call("bash", { command: "sed -i 's/^9$/nine/' a.txt" }),
      { text: "done" },
    ]);
    const { events } = await agent.run("append 11, rename 9");
    const evidence = buildEvidence(events);
    expect(evidence.preexistingChanges).toEqual(["a.txt"]);
    expect(evidence.filesChanged).toEqual([{ path: "a.txt", added: 2, removed: 1 }]);
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("1 user\n2\n3\n4\n5\n6\n7\n8\nnine\n10\n11\n");
  });

  it("accounts writes through write tools and a file deleted by the shell; ignored files named by a tool too", async () => {
    const dir = await setup({ ".gitignore": "build/\n", "gone.txt": "x\ny\n", "build/out.txt": "old\n" });
    const agent = await agentIn(dir, [
      call("write_file", { path: "src/new.ts", content: "export const a = 1;\n" }),
      call("read_file", { path: "build/out.txt" }),
      call("write_file", { path: "build/out.txt", content: "new\nlines\n" }),
      call("bash", { command: "rm gone.txt" }),
      { text: "done" },
    ]);
    const { events } = await agent.run("work");
    expect(buildEvidence(events).filesChanged).toEqual([
      { path: "build/out.txt", added: 2, removed: 1 },
      { path: "gone.txt", added: 0, removed: 2 },
      { path: "src/new.ts", added: 1, removed: 0 },
    ]);
  });

  it("works in a folder that is not a git repository (a snapshot taken at run start)", async () => {
    const dir = await setup({ "a.txt": "a\nb\n", "keep.txt": "k\n" }, { git: false });
    const agent = await agentIn(dir, [
      call("bash", { command: "sed -i 's/b/B/' a.txt && echo c > c.txt" }),
      call("git_diff", {}),
      { text: "done" },
    ]);
    const { events } = await agent.run("edit");
    const evidence = buildEvidence(events);
    expect(facts(events, FACT.baseline)[0]).toMatchObject({ repository: "folder", preexisting: [] });
    expect(evidence.filesChanged).toEqual([
      { path: "a.txt", added: 1, removed: 1 },
      { path: "c.txt", added: 1, removed: 0 },
    ]);
    const diff = events.find((e) => e.type === "tool_call_completed" && e.result.toolName === "git_diff");
    expect(JSON.stringify(diff)).toContain("2 files changed by you, +2 -1");
  });
});

describe("review before handoff", () => {
  it("flags a planted token, whitespace-only churn, a lockfile and a file outside the declared scope", async () => {
    const dir = await setup({
      "src/app.js": "function f() {\n  return 1;\n}\n",
      "src/style.js": "const a = 1;\nconst b = 2;\n",
      "package-lock.json": "{}\n",
    });
    const token = `ghp_${"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"}`;
    const agent = await agentIn(dir, [
      call("update_plan", {
        plan: [{ step: "add the config", status: "in_progress" }],
        scope: ["src/"],
      }),
      call("write_file", { path: "src/config.js", content: `export const token = "${token}";\n` }),
      call("bash", { command: "sed -i 's/^const b = 2;$/const b  =  2;/' src/style.js" }),
      call("bash", { command: "echo '{\"lockfileVersion\": 3}' > package-lock.json" }),
      call("bash", { command: "echo x > stray.txt" }),
      { text: "done" },
    ]);
    const { events } = await agent.run("add a config module");
    const { flags } = buildEvidence(events);
    expect(flags).toContainEqual({
      kind: "secret",
      path: "src/config.js",
      note: "GitHub token added at line 1",
    });
    expect(flags).toContainEqual({
      kind: "churn",
      path: "src/style.js",
      note: "whitespace-only hunk at line 2",
    });
    expect(flags.some((f) => f.kind === "churn" && f.path === "package-lock.json")).toBe(true);
    expect(flags).toContainEqual(expect.objectContaining({ kind: "scope", path: "stray.txt" }));
    expect(flags.some((f) => f.kind === "scope" && f.path.startsWith("src/"))).toBe(false);
    // The token itself never reaches the event log through the review.
    expect(JSON.stringify(facts(events, FACT.changes))).not.toContain(token);
    expect(facts(events, FACT.plan)).toHaveLength(1);
  });

  it("does not flag the user's own secret-looking edit, only the agent's", async () => {
    const dir = await setup({ "settings.py": "DEBUG = True\n" });
    await writeFiles(dir, { "settings.py": "DEBUG = True\nAWS_KEY = 'AKIAABCDEFGHIJKLMNOP'\n" });
    const agent = await agentIn(dir, [
      call("bash", { command: "echo 'NAME = 1' >> settings.py" }),
      call("git_diff", { scope: "all" }),
      { text: "ok" },
    ]);
    const { events } = await agent.run("add NAME");
    // The user's key never reaches the model through the diff: the line is named, not shown.
    const diff = JSON.stringify(
      events.find((e) => e.type === "tool_call_completed" && e.result.toolName === "git_diff"),
    );
    expect(diff).not.toContain("AKIAABCDEFGHIJKLMNOP");
    expect(diff).toContain("+[line withheld from settings.py: looks like a AWS access key id]");
    expect(diff).toContain("+NAME = 1");
    const evidence = buildEvidence(events);
    expect(evidence.filesChanged).toEqual([{ path: "settings.py", added: 1, removed: 0 }]);
    expect(evidence.flags).toEqual([
      {
        kind: "scope",
        path: "settings.py",
        note: "the user had uncommitted changes here: check they are intact",
      },
    ]);
  });

  it("flags the user's uncommitted changes undone by the agent (a file restored, a new file deleted)", async () => {
    const dir = await setup({ "a.txt": "a\n", "b.txt": "b\n" });
    await writeFiles(dir, { "a.txt": "a, edited by the user\n", "draft.md": "the user's draft\n" });
    const agent = await agentIn(dir, [
      call("bash", { command: "git checkout -- a.txt && rm draft.md && echo c >> b.txt" }),
      { text: "cleaned up" },
    ]);
    const { events } = await agent.run("clean up");
    const evidence = buildEvidence(events);
    expect(evidence.flags).toEqual([
      { kind: "scope", path: "a.txt", note: "the user's uncommitted changes to this file were undone" },
      { kind: "scope", path: "draft.md", note: "the user's uncommitted changes to this file were undone" },
    ]);
    expect(evidence.filesChanged).toEqual([
      { path: "a.txt", added: 1, removed: 1 },
      { path: "b.txt", added: 1, removed: 0 },
      { path: "draft.md", added: 0, removed: 1 },
    ]);
  });
});

describe("checks and the repair loop", () => {
  const failingProject = {
    "package.json": JSON.stringify({ scripts: { test: "node test.js", lint: "node lint.js" } }),
    "package-lock.json": "{}\n",
    "test.js": "console.log('1 test failed: expected 2, got 1'); process.exit(1);\n",
    "lint.js": "console.log('lint ok');\n",
  };

  it("detects checks with their sources and runs a passing one", async () => {
    const dir = await setup({ ...failingProject, Makefile: "build:\n\ttrue\n" });
    const agent = await agentIn(dir, [
      call("detect_checks", {}),
      call("run_check", { kind: "lint" }),
      { text: "ok" },
    ]);
    const { events } = await agent.run("lint");
    const detected = events.find(
      (e) => e.type === "tool_call_completed" && e.result.toolName === "detect_checks",
    );
    expect(JSON.stringify(detected)).toContain("test: npm run test (from package.json scripts.test)");
    expect(JSON.stringify(detected)).toContain("build: make build (from Makefile target build)");
    const evidence = buildEvidence(events);
    expect(evidence.checks).toEqual([
      {
        kind: "test",
        command: "npm run test",
        status: "skipped",
        note: "detected (package.json scripts.test), not run",
      },
      { kind: "lint", command: "npm run lint", status: "passed" },
      {
        kind: "typecheck",
        command: "",
        status: "unavailable",
        note: "no typecheck command found in the project",
      },
      {
        kind: "build",
        command: "make build",
        status: "skipped",
        note: "detected (Makefile target build), not run",
      },
    ]);
    expect(evidence.commands).toEqual([{ command: "npm run lint", exitCode: 0 }]);
  });

  it("retries a failing test at most N times, then stops, and the handoff says failed", async () => {
    const dir = await setup(failingProject);
    const attempts = Array.from({ length: 5 }, () => call("run_check", { kind: "test" }));
    const agent = await agentIn(dir, [...attempts, { text: "all good!" }], { repairAttempts: 2 });
    const { events, result } = await agent.run("fix the test");
    expect(result.stopReason).toBe("tool_retries_exceeded");
    const ran = events.filter((e) => e.type === "tool_call_requested" && e.toolCall.name === "run_check");
    expect(ran).toHaveLength(3);
    const evidence = buildEvidence(events);
    expect(evidence.checks[0]).toEqual({
      kind: "test",
      command: "npm run test",
      status: "failed",
      note: "exit code 1; 3 runs, 3 failed",
    });
    expect(evidence.commands).toHaveLength(3);
    expect(evidence.risks.at(-1)).toContain("still failed when the repair attempts ran out");
    const outcome = handoffOutcome(events);
    expect(outcome.status).toBe("failed");
    expect(formatHandoff(evidence, outcome)).toMatch(/^handoff: FAILED/);
    // The model was told how many attempts were left each time.
    const results = events.flatMap((e) =>
      e.type === "tool_call_completed" && e.result.toolName === "run_check"
        ? [JSON.stringify(e.result.content)]
        : [],
    );
    expect(results[0]).toContain("2 repair attempts left");
    expect(results[2]).toContain("No repair attempts are left");
  });

  it("with --repair-attempts 0 the first failure stops the run", async () => {
    const dir = await setup(failingProject);
    const agent = await agentIn(
      dir,
      [call("run_check", { kind: "test" }), call("run_check", { kind: "test" })],
      {
        repairAttempts: 0,
      },
    );
    const { events, result } = await agent.run("test");
    expect(result.stopReason).toBe("tool_retries_exceeded");
    expect(buildEvidence(events).checks[0]?.status).toBe("failed");
  });

  it("records assumptions, risks and follow-ups from handoff_notes", async () => {
    const dir = await setup({ "a.txt": "a\n" });
    const agent = await agentIn(dir, [
      call("handoff_notes", {
        assumptions: ["UTF-8 input"],
        risks: ["none known"],
        follow_ups: ["add a test"],
      }),
      { text: "ok" },
    ]);
    const { events } = await agent.run("note");
    const evidence = buildEvidence(events);
    expect(evidence).toMatchObject({
      assumptions: ["UTF-8 input"],
      risks: ["none known"],
      followUps: ["add a test"],
    });
    expect(Object.keys(evidence)).toEqual([
      "task",
      "filesChanged",
      "preexistingChanges",
      "commands",
      "checks",
      "flags",
      "assumptions",
      "risks",
      "followUps",
    ]);
  });
});
