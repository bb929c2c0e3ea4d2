import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@bridle/core";
import { afterEach, describe, expect, it } from "vitest";
import { buildEvidence } from "../src/index.js";
import { call, codingAgent, gitIn, tempRepo, writeFiles } from "./repo.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function repo(files: Record<string, string>, options: { git?: boolean } = {}) {
  const made = await tempRepo(files, options);
  cleanups.push(made.cleanup);
  return made.dir;
}

async function run(dir: string, script: Parameters<typeof codingAgent>[1], prompt = "work") {
  const agent = await codingAgent(dir, script);
  cleanups.push(() => agent.close());
  return agent.run(prompt);
}

function resultOf(events: readonly RunEvent[], tool: string): string {
  const found = events.filter((e) => e.type === "tool_call_completed" && e.result.toolName === tool);
  const last = found.at(-1);
  return last?.type === "tool_call_completed"
    ? last.result.content.map((p) => (p.type === "text" ? p.text : "")).join("")
    : "";
}

describe("edge cases", () => {
  it("names with spaces, quotes and non-ASCII survive git status -z", async () => {
    const dir = await repo({ "a b.txt": "x\n", "é'q.txt": "y\n" });
    await writeFiles(dir, { "user file.txt": "mine\n" });
    const { events } = await run(dir, [
      call("bash", { command: `printf 'z\\n' >> 'a b.txt' && printf 'w\\n' > "é'q.txt"` }),
      { text: "ok" },
    ]);
    const evidence = buildEvidence(events);
    expect(evidence.preexistingChanges).toEqual(["user file.txt"]);
    expect(evidence.filesChanged).toEqual([
      { path: "a b.txt", added: 1, removed: 0 },
      { path: "é'q.txt", added: 1, removed: 1 },
    ]);
  });

  it("a workspace inside a larger repository sees only its own paths, relative to itself", async () => {
    const top = await repo({ "outside.txt": "o\n", "pkg/inside.txt": "i\n" });
    await writeFiles(top, { "outside.txt": "user edit outside\n" });
    const { events } = await run(join(top, "pkg"), [
      call("bash", { command: "echo more >> inside.txt" }),
      { text: "ok" },
    ]);
    const evidence = buildEvidence(events);
    expect(evidence.preexistingChanges).toEqual([]);
    expect(evidence.filesChanged).toEqual([{ path: "inside.txt", added: 1, removed: 0 }]);
  });

  it("a symlink to a file outside the workspace is diffed as its target path, never read through", async () => {
    const dir = await repo({ "a.txt": "a\n" });
    const outside = join(dir, "..", `secret-${process.pid}.txt`);
    await writeFile(outside, "TOP SECRET CONTENT\n");
    cleanups.push(async () => {
      await import("node:fs/promises").then((fs) => fs.rm(outside, { force: true }));
    });
    await symlink(outside, join(dir, "link"));
    const { events } = await run(dir, [
      call("bash", { command: "ln -s a.txt link2" }),
      call("git_diff", { scope: "agent" }),
      { text: "ok" },
    ]);
    const evidence = buildEvidence(events);
    expect(evidence.preexistingChanges).toEqual(["link"]);
    expect(evidence.filesChanged).toEqual([{ path: "link2", added: 1, removed: 0 }]);
    expect(JSON.stringify(events)).not.toContain("TOP SECRET CONTENT");
    expect(resultOf(events, "git_diff")).toContain("+a.txt");
  });

  it("a huge diff stays bounded for the model while its counts stay exact", async () => {
    const dir = await repo({ "big.txt": "" });
    const { events } = await run(dir, [
      call("bash", { command: "seq 1 20000 > big.txt && for i in $(seq 1 60); do echo $i > f$i.txt; done" }),
      call("git_diff", { max_hunks: 20 }),
      call("git_status", {}),
      { text: "ok" },
    ]);
    const evidence = buildEvidence(events);
    expect(evidence.filesChanged).toContainEqual({ path: "big.txt", added: 20000, removed: 0 });
    expect(evidence.filesChanged).toHaveLength(61);
    const diff = resultOf(events, "git_diff");
    expect(diff.length).toBeLessThan(25_000);
    expect(diff).toContain("61 files changed by you, +20060 -0");
    expect(diff).toMatch(/more lines in this hunk/);
  });

  it("a run_check target is one quoted argument: shell syntax in it never runs", async () => {
    const dir = await repo({
      "package.json": JSON.stringify({ scripts: { test: "node check.js" } }),
      "check.js": "console.log(JSON.stringify(process.argv.slice(2)));\n",
    });
    const target = "$(touch pwned); touch pwned2 `touch pwned3`";
    const { events } = await run(dir, [call("run_check", { kind: "test", target }), { text: "ok" }]);
    expect(buildEvidence(events).checks[0]).toMatchObject({ status: "passed" });
    expect(resultOf(events, "run_check")).toContain(JSON.stringify([target]));
    for (const name of ["pwned", "pwned2", "pwned3"]) expect(existsSync(join(dir, name))).toBe(false);
  });

  it("a check with no command is unavailable, and a make target refuses a narrower target", async () => {
    const dir = await repo({ Makefile: "test:\n\t@echo ok\n" });
    const { events } = await run(dir, [
      call("run_check", { kind: "typecheck" }),
      call("run_check", { kind: "test", target: "unit" }),
      { text: "ok" },
    ]);
    const results = events.flatMap((e) =>
      e.type === "tool_call_completed" && e.result.toolName === "run_check"
        ? [JSON.stringify(e.result.content)]
        : [],
    );
    expect(results[0]).toContain("typecheck: unavailable: no typecheck command was found");
    expect(results[1]).toContain("make test takes no target");
    expect(buildEvidence(events).checks.slice(0, 2)).toEqual([
      {
        kind: "test",
        command: "",
        status: "skipped",
        note: "make test takes no target: run the test check without one",
      },
      { kind: "lint", command: "", status: "unavailable", note: "no lint command found in the project" },
    ]);
  });

  it("the user's staged-then-edited file keeps both states and its bytes; a file the user deleted stays deleted", async () => {
    const dir = await repo({ "s.txt": "1\n", "gone.txt": "g\n" });
    await writeFiles(dir, { "s.txt": "1\n2\n" });
    gitIn(dir, "add", "s.txt");
    await writeFiles(dir, { "s.txt": "1\n2\n3\n" });
    gitIn(dir, "rm", "-q", "gone.txt");
    const before = await readFile(join(dir, "s.txt"));
    const { events } = await run(dir, [call("bash", { command: "echo n > new.txt" }), { text: "ok" }]);
    const baseline = events.find((e) => e.type === "fact" && e.kind === "coding.baseline");
    expect(baseline?.type === "fact" && baseline.data).toMatchObject({
      preexisting: [
        { path: "gone.txt", states: ["staged"], sha256: null },
        { path: "s.txt", states: ["staged", "unstaged"] },
      ],
    });
    expect(buildEvidence(events).filesChanged).toEqual([{ path: "new.txt", added: 1, removed: 0 }]);
    expect((await readFile(join(dir, "s.txt"))).equals(before)).toBe(true);
    expect(existsSync(join(dir, "gone.txt"))).toBe(false);
  });

  it("a repository without commits: everything the user had is pre-existing", async () => {
    const dir = await repo({ "a.txt": "a\n" }, { git: false });
    gitIn(dir, "init", "-q", "-b", "main");
    await mkdir(join(dir, "src"));
    const { events } = await run(dir, [call("bash", { command: "echo b >> a.txt" }), { text: "ok" }]);
    const evidence = buildEvidence(events);
    expect(evidence.preexistingChanges).toEqual(["a.txt"]);
    expect(evidence.filesChanged).toEqual([{ path: "a.txt", added: 1, removed: 0 }]);
  });
});
