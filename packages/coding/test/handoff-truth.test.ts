import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { matchCheck } from "../src/check-match.js";
import type { DetectedCheck } from "../src/facts.js";
import { buildEvidence, formatHandoff, handoffExitCode, handoffOutcome } from "../src/index.js";
import { scanAddedLines } from "../src/secret-scan.js";
import { type Agent, call, codingAgent, gitIn, tempRepo } from "./repo.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

// A project whose test really tests: `node test.js` fails when sum() is wrong.
const project = {
  "package.json": JSON.stringify({ scripts: { test: "node test.js" } }),
  "package-lock.json": "{}\n",
  ".gitignore": "out/\n",
  "sum.js": "exports.sum = (a, b) => a - b;\n",
  "test.js": [
    "const assert = require('node:assert');",
    "const { sum } = require('./sum.js');",
    "assert.strictEqual(sum(1, 2), 3);",
    "assert.strictEqual(sum(2, 2), 4);",
    "console.log('2 passed');",
    "",
  ].join("\n"),
  "run.sh": "#!/bin/sh\necho run\n",
};

async function agentIn(files: Record<string, string>, script: Parameters<typeof codingAgent>[1]) {
  const repo = await tempRepo(files);
  cleanups.push(repo.cleanup);
  const agent: Agent = await codingAgent(repo.dir, script);
  cleanups.push(() => agent.close());
  return { dir: repo.dir, agent };
}

const fixSum = [
  call("read_file", { path: "sum.js" }),
  call("edit_file", { path: "sum.js", old_string: "a - b", new_string: "a + b" }),
];

describe("the handoff tells the truth about checks", () => {
  it("says a passing test is stale when the code changed after it", async () => {
    const { agent } = await agentIn(project, [
      ...fixSum,
      call("run_check", { kind: "test" }),
      call("edit_file", { path: "sum.js", old_string: "a + b", new_string: "b + a + 0" }),
      { text: "done, tests pass" },
    ]);
    const { events, result } = await agent.run("fix sum");
    expect(result.stopReason).toBe("completed");
    const evidence = buildEvidence(events);
    expect(evidence.checks[0]).toMatchObject({ kind: "test", status: "passed", staleAfter: ["sum.js"] });
    const outcome = handoffOutcome(events);
    expect(outcome.status).toBe("unverified");
    expect(outcome.reason).toBe("stale: the test check passed before changes to sum.js; not run again since");
    expect(formatHandoff(evidence, outcome)).toContain("STALE: files changed after it: sum.js");
    expect(handoffExitCode(outcome)).toBe(0);
  });

  it("does not count the check's own writes (a snapshot it saves) as a later change", async () => {
    const files = {
      ...project,
      "test.js": `${project["test.js"]}require('node:fs').writeFileSync('last-run.txt', 'ok\\n');\n`,
    };
    const { agent } = await agentIn(files, [
      ...fixSum,
      call("run_check", { kind: "test" }),
      { text: "done" },
    ]);
    const { events } = await agent.run("fix sum");
    const evidence = buildEvidence(events);
    expect(evidence.filesChanged.map((f) => f.path)).toEqual(["last-run.txt", "sum.js"]);
    expect(evidence.checks[0]).toEqual({ kind: "test", command: "npm run test", status: "passed" });
    expect(handoffOutcome(events)).toEqual({ status: "done", reason: "checks passed" });
  });

  it("counts the project's test run through bash, passing or failing, after the last change", async () => {
    const passing = await agentIn(project, [
      ...fixSum,
      call("bash", { command: "npm test" }),
      { text: "done" },
    ]);
    const ran = await passing.agent.run("fix sum");
    expect(buildEvidence(ran.events).checks[0]).toEqual({
      kind: "test",
      command: "npm test",
      status: "passed",
      note: "run through bash",
    });
    expect(handoffOutcome(ran.events)).toEqual({ status: "done", reason: "checks passed" });

    // The script's own text, run directly, is the same check; here it fails on the final code.
    const failing = await agentIn(project, [
      call("bash", { command: "sed -i 's/a - b/a * b/' sum.js" }),
      call("bash", { command: "node test.js" }),
      { text: "no test failures" },
    ]);
    const failed = await failing.agent.run("fix sum");
    const outcome = handoffOutcome(failed.events);
    expect(outcome).toEqual({ status: "failed", reason: "failing checks: test" });
    expect(buildEvidence(failed.events).checks[0]).toMatchObject({
      status: "failed",
      command: "node test.js",
    });
    expect(handoffExitCode(outcome)).toBe(1);
  });

  it("counts a test after an edit in the same bash call, and one before an edit as stale", async () => {
    const editThenTest = await agentIn(project, [
      call("bash", { command: "sed -i 's/a - b/a + b/' sum.js && npm test" }),
      { text: "done" },
    ]);
    const fixed = await editThenTest.agent.run("fix sum");
    expect(buildEvidence(fixed.events).checks[0]).toEqual({
      kind: "test",
      command: "sed -i 's/a - b/a + b/' sum.js && npm test",
      status: "passed",
      note: "run through bash",
    });
    expect(handoffOutcome(fixed.events)).toEqual({ status: "done", reason: "checks passed" });

    const testThenEdit = await agentIn(project, [
      ...fixSum,
      call("bash", { command: "npm test && sed -i 's/a + b/b + a - 0/' sum.js" }),
      { text: "done, tests pass" },
    ]);
    const after = await testThenEdit.agent.run("fix sum");
    expect(await readFile(join(testThenEdit.dir, "sum.js"), "utf8")).toBe(
      "exports.sum = (a, b) => b + a - 0;\n",
    );
    expect(buildEvidence(after.events).checks[0]).toMatchObject({
      kind: "test",
      status: "passed",
      staleAfter: ["sum.js"],
    });
    expect(handoffOutcome(after.events)).toEqual({
      status: "unverified",
      reason: "stale: the test check passed before changes to sum.js; not run again since",
    });
  });

  it("keeps a test current when only commands that read follow it in the same call", async () => {
    const files = {
      ...project,
      "test.js": `${project["test.js"]}require('node:fs').writeFileSync('last-run.txt', 'ok\\n');\n`,
    };
    const { agent } = await agentIn(files, [
      ...fixSum,
      call("bash", { command: "npm test && git status --short && cat sum.js" }),
      { text: "done" },
    ]);
    const { events } = await agent.run("fix sum");
    const evidence = buildEvidence(events);
    expect(evidence.filesChanged.map((f) => f.path)).toEqual(["last-run.txt", "sum.js"]);
    expect(evidence.checks[0]).toMatchObject({ kind: "test", status: "passed" });
    expect(evidence.checks[0]?.staleAfter).toBeUndefined();
    expect(handoffOutcome(events)).toEqual({ status: "done", reason: "checks passed" });
  });

  it("does not count a test whose exit status another command hides", async () => {
    const { agent } = await agentIn(project, [
      call("bash", { command: "sed -i 's/a - b/a * b/' sum.js" }),
      call("bash", { command: "npm test | tail -1" }),
      call("bash", { command: "npm test || true" }),
      { text: "tests pass" },
    ]);
    const { events } = await agent.run("fix sum");
    expect(buildEvidence(events).checks[0]).toMatchObject({ status: "skipped" });
    expect(handoffOutcome(events)).toEqual({
      status: "unverified",
      reason: "files changed but no check ran and passed",
    });
  });

  it("flags assertions deleted through the shell, even when the weakened test then passes", async () => {
    const { agent } = await agentIn(project, [
      call("bash", { command: "sed -i '/assert.strictEqual/d' test.js" }),
      call("run_check", { kind: "test" }),
      { text: "fixed: no test failures" },
    ]);
    const { events } = await agent.run("make the test pass");
    const evidence = buildEvidence(events);
    expect(evidence.checks[0]?.status).toBe("passed");
    expect(evidence.flags).toContainEqual({
      kind: "tests",
      path: "test.js",
      note: "2 assertions removed (2 deleted, 0 added)",
    });
    expect(handoffOutcome(events)).toEqual({
      status: "unverified",
      reason: "checks passed, but the agent weakened tests in test.js",
    });
  });

  it("flags a skip marker added with edit_file, and a deleted test file", async () => {
    const files = {
      ...project,
      "sum.test.js": "test('adds', () => {\n  expect(sum(1, 2)).toBe(3);\n});\n",
      "old.spec.js": "it('works', () => expect(1).toBe(1));\n",
    };
    const { agent } = await agentIn(files, [
      call("read_file", { path: "sum.test.js" }),
      call("edit_file", { path: "sum.test.js", old_string: "test('adds'", new_string: "test.skip('adds'" }),
      call("bash", { command: "rm old.spec.js" }),
      { text: "done" },
    ]);
    const { events } = await agent.run("tidy tests");
    const flags = buildEvidence(events).flags.filter((flag) => flag.kind === "tests");
    expect(flags).toEqual([
      { kind: "tests", path: "old.spec.js", note: "test file deleted" },
      { kind: "tests", path: "sum.test.js", note: "skip marker added: `test.skip` at line 1" },
    ]);
  });
});

describe("the handoff lists what git status does not show", () => {
  it("lists the agent's commit, and keeps the committed change in the agent's files", async () => {
    const { dir, agent } = await agentIn(project, [
      call("bash", { command: "sed -i 's/a - b/a + b/' sum.js" }),
      call("git_commit", { message: "Fix sum" }),
      { text: "committed" },
    ]);
    const before = gitIn(dir, "rev-parse", "HEAD").trim();
    const { events } = await agent.run("fix and commit");
    const after = gitIn(dir, "rev-parse", "HEAD").trim();
    expect(after).not.toBe(before);
    const evidence = buildEvidence(events);
    expect(evidence.head).toEqual({
      from: before,
      to: after,
      commits: [{ sha: after, subject: "Fix sum" }],
      commitCount: 1,
    });
    expect(evidence.filesChanged).toEqual([{ path: "sum.js", added: 1, removed: 1 }]);
    expect(formatHandoff(evidence, handoffOutcome(events))).toContain(
      `commits by the agent: 1 (HEAD ${before.slice(0, 10)} → ${after.slice(0, 10)})\n  ${after.slice(0, 10)} Fix sum`,
    );
  });

  it("lists a chmod +x made through bash", async () => {
    const { agent } = await agentIn(project, [call("bash", { command: "chmod +x run.sh" }), { text: "ok" }]);
    const { events } = await agent.run("make run.sh executable");
    const evidence = buildEvidence(events);
    expect(evidence.modeChanges).toEqual([{ path: "run.sh", from: "100644", to: "100755" }]);
    expect(evidence.filesChanged).toEqual([]);
    expect(formatHandoff(evidence, handoffOutcome(events))).toContain(
      "mode changes: 1\n  run.sh 100644 → 100755",
    );
  });

  it("lists writes into git-ignored paths and says a secret was written there without printing it", async () => {
    // The key is assembled by the shell so that it appears whole only in the file written.
    const key = `AKIA${"ABCDEFGHIJKLMNOP"}`;
    // Random-looking build output (a source map's text) is no secret in an ignored folder, though the
    // entropy guess applied to a reviewed diff would flag it.
    const buildOutput = "q8ZtR2mX9vLp4KsW7nYb3HcJ6fDg";
    expect(scanAddedLines("x.js", [buildOutput], 1)).toEqual([{ what: "high-entropy string", line: 1 }]);
    const { dir, agent } = await agentIn(project, [
      call("bash", {
        command: `mkdir -p out && printf 'AWS_KEY=AKIA%s\\n' ABCDEFGHIJKLMNOP > out/config.txt && echo ${buildOutput} > out/plain.txt`,
      }),
      { text: "ok" },
    ]);
    const { events } = await agent.run("write the config");
    expect(await readFile(join(dir, "out/config.txt"), "utf8")).toBe(`AWS_KEY=${key}\n`);
    const evidence = buildEvidence(events);
    expect(evidence.ignoredWrites).toEqual([
      { path: "out/config.txt", change: "added", secrets: ["AWS access key id at line 1"] },
      { path: "out/plain.txt", change: "added", secrets: [] },
    ]);
    expect(evidence.filesChanged).toEqual([]);
    const text = formatHandoff(evidence, handoffOutcome(events));
    expect(text).toContain(
      "writes into git-ignored paths: 2\n  out/config.txt (added): A SECRET WAS WRITTEN HERE (AWS access key id at line 1)\n  out/plain.txt (added)",
    );
    expect(`${text}${JSON.stringify(evidence)}`).not.toContain(key);
  });

  it("never repeats a credential from a command line", async () => {
    const key = `AKIA${"QRSTUVWXYZ234567"}`;
    const { agent } = await agentIn(project, [
      call("bash", { command: `mkdir -p out && echo ${key} > out/k.txt` }),
      { text: "ok" },
    ]);
    const { events } = await agent.run("store the key");
    const evidence = buildEvidence(events);
    expect(evidence.commands[0]?.command).toBe(
      "mkdir -p out && echo [AWS access key id redacted] > out/k.txt",
    );
    expect(formatHandoff(evidence, handoffOutcome(events))).not.toContain(key);
  });
});

describe("which shell commands run a check", () => {
  const checks: DetectedCheck[] = [
    { kind: "test", command: "pnpm run test", source: "package.json scripts.test", body: "vitest run" },
    {
      kind: "lint",
      command: "pnpm run lint",
      source: "package.json scripts.lint",
      body: "biome check . && tsc",
    },
    { kind: "build", command: "go build ./...", source: "go.mod" },
  ];
  it.each([
    ["pnpm test", 0, { kind: "test", status: "passed", later: false }],
    ["npm run test -- src/a.test.ts", 1, { kind: "test", status: "failed", later: false }],
    ["CI=1 timeout 600 npx vitest run src", 0, { kind: "test", status: "passed", later: false }],
    ["cd pkg && yarn lint", 2, { kind: "lint", status: "failed", later: false }],
    ["pnpm test && echo ok", 0, { kind: "test", status: "passed", later: true }],
    ["go build ./cmd/...", 0, { kind: "build", status: "passed", later: false }],
    ["'pnpm' \"test\"", 0, { kind: "test", status: "passed", later: false }],
  ])("%s (exit %i) runs a check", (command, exit, expected) => {
    expect(matchCheck(command, exit, checks)).toEqual(expected);
  });
  it.each([
    ["pnpm test | tail -5", 0],
    ["pnpm test || true", 0],
    ["false || pnpm test", 0],
    ["pnpm test &", 0],
    ["pnpm test; echo done", 0],
    ["pnpm test && echo ok", 1],
    ["echo pnpm test", 0],
    ["biome check .", 0],
    ["pnpm run testing", 0],
  ])("%s (exit %i) says nothing about a check", (command, exit) => {
    expect(matchCheck(command, exit, checks)).toBeUndefined();
  });
});
