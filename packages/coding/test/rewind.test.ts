import { lstat, mkdtemp, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints, RewindError } from "../src/index.js";
import { type Agent, call, codingAgent, tempRepo } from "./repo.js";

// Checkpoints around real turns: the fs tools and sandboxed bash change a real git repository, and a
// rewind puts it back, or refuses and names the files.
let dir: string;
let dataDir: string;
let cleanup: () => Promise<void>;
let agent: Agent | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempRepo({
    "src/sum.js": "export const sum = (a, b) => a - b;\n",
    "README.md": "# sums\n",
  }));
  // The user's uncommitted work: an edit and a new file git has never seen.
  await writeFile(join(dir, "README.md"), "# sums\n\nwork in progress\n");
  await writeFile(join(dir, "notes.txt"), "not committed anywhere\n");
  dataDir = await mkdtemp(join(tmpdir(), "bridle-rewind-data-"));
});
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

async function turn(checkpoints: Checkpoints, number: number, prompt: string): Promise<void> {
  await checkpoints.begin({ turn: number, forkSeq: number * 10, prompt });
  const ran = await agent?.run(prompt);
  // Every call the script makes is one that works: a refused call would prove nothing here.
  const failed = (ran?.events ?? []).filter((e) => e.type === "tool_call_completed" && e.result.isError);
  expect(failed).toEqual([]);
  await checkpoints.end();
}

const read = (path: string) => readFile(join(dir, path), "utf8");

describe("rewind checkpoints", () => {
  it("undoes a sandboxed rm -rf, the user's uncommitted files included", async () => {
    agent = await codingAgent(dir, [
      call("read_file", { path: "src/sum.js" }),
      call("edit_file", { path: "src/sum.js", old_string: "a - b", new_string: "a + b" }),
      { text: "fixed" },
      call("bash", { command: "rm -rf src notes.txt README.md && echo gone > after.txt" }),
      { text: "cleaned up" },
    ]);
    const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s1" });
    await turn(checkpoints, 1, "fix the sum");
    expect(await read("src/sum.js")).toContain("a + b");
    await turn(checkpoints, 2, "clean up");
    await expect(lstat(join(dir, "src"))).rejects.toThrow();

    expect(Object.keys(checkpoints.turns()[1]?.changes ?? {}).sort()).toEqual([
      "README.md",
      "after.txt",
      "notes.txt",
      "src/sum.js",
    ]);
    const plan = await checkpoints.rewind(2);
    expect(plan.conflicts).toEqual([]);
    expect(plan.forkSeq).toBe(20);
    expect(await read("src/sum.js")).toContain("a + b");
    expect(await read("README.md")).toBe("# sums\n\nwork in progress\n");
    expect(await read("notes.txt")).toBe("not committed anywhere\n");
    await expect(lstat(join(dir, "after.txt"))).rejects.toThrow();

    // The conversation goes on as a fork holding the turns before; its record, opened afresh by another
    // process, rewinds further back: the edit of turn 1 goes too.
    await checkpoints.continueAs("s1-fork", 2);
    const reopened = await Checkpoints.open({ dataDir, root: dir, sessionId: "s1-fork" });
    expect(reopened.turns().map((t) => t.turn)).toEqual([1]);
    const back = await reopened.rewind(1);
    expect(back.conflicts).toEqual([]);
    expect(back.restore.map((r) => r.path)).toEqual(["src/sum.js"]);
    expect(await read("src/sum.js")).toBe("export const sum = (a, b) => a - b;\n");
  });

  it("refuses, changing nothing, when the user edited a file after the checkpoint, and names it", async () => {
    agent = await codingAgent(dir, [
      call("read_file", { path: "src/sum.js" }),
      call("edit_file", { path: "src/sum.js", old_string: "a - b", new_string: "a + b" }),
      call("write_file", { path: "new.txt", content: "agent's\n" }),
      { text: "done" },
    ]);
    const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s2" });
    await turn(checkpoints, 1, "fix it");
    await writeFile(join(dir, "src/sum.js"), "export const sum = (a, b) => b + a; // mine\n");

    const plan = await checkpoints.rewind(1);
    expect(plan.conflicts).toEqual([
      { path: "src/sum.js", reason: "changed since the agent's last change to it" },
    ]);
    // All or nothing: the agent's new file is still there too.
    expect(await read("new.txt")).toBe("agent's\n");
    expect(await read("src/sum.js")).toContain("// mine");
  });

  it("refuses a file the user changed between turns that a later turn changed again", async () => {
    agent = await codingAgent(dir, [
      call("write_file", { path: "a.txt", content: "one\n" }),
      { text: "1" },
      call("read_file", { path: "a.txt" }),
      call("write_file", { path: "a.txt", content: "three\n" }),
      { text: "2" },
    ]);
    const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s3" });
    await turn(checkpoints, 1, "first");
    await writeFile(join(dir, "a.txt"), "two (the user's)\n");
    await turn(checkpoints, 2, "second");
    expect((await checkpoints.plan(1)).conflicts).toEqual([
      { path: "a.txt", reason: "changed by someone else before turn 2" },
    ]);
    // Back to turn 2's start is fine: the user's edit is what it restores.
    expect((await checkpoints.rewind(2)).conflicts).toEqual([]);
    expect(await read("a.txt")).toBe("two (the user's)\n");
  });

  it("never writes through a link: a folder swapped for a link out during a turn is refused", async () => {
    const outside = await mkdtemp(join(tmpdir(), "bridle-rewind-outside-"));
    try {
      agent = await codingAgent(dir, [call("bash", { command: "rm -rf src" }), { text: "done" }]);
      const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s4" });
      await checkpoints.begin({ turn: 1, forkSeq: 0, prompt: "remove src" });
      await agent.run("remove src");
      // Another process puts a link where the folder was, before the turn's end is recorded.
      await symlink(outside, join(dir, "src"));
      await checkpoints.end();
      const plan = await checkpoints.rewind(1);
      expect(plan.conflicts).toEqual([
        { path: "src/sum.js", reason: "a link or a path outside the workspace lies on the way" },
      ]);
      // Nothing was written, in the workspace or through the link.
      expect((await lstat(join(dir, "src"))).isSymbolicLink()).toBe(true);
      await expect(lstat(join(outside, "sum.js"))).rejects.toThrow();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("keeps a link as a link and restores it without following it", async () => {
    const outside = await mkdtemp(join(tmpdir(), "bridle-rewind-outside-"));
    try {
      await writeFile(join(outside, "secret.txt"), "outside\n");
      await symlink(join(outside, "secret.txt"), join(dir, "shortcut"));
      const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s5" });
      await checkpoints.begin({ turn: 1, forkSeq: 0, prompt: "replace the link" });
      // The policy stops the agent's bash from touching a link out; a process it started need not ask.
      await rm(join(dir, "shortcut"));
      await writeFile(join(dir, "shortcut"), "a plain file now\n");
      await checkpoints.end();
      expect((await checkpoints.rewind(1)).conflicts).toEqual([]);
      expect(await readlink(join(dir, "shortcut"))).toBe(join(outside, "secret.txt"));
      expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside\n");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("refuses to bring back a file too large to have been kept, naming it", async () => {
    await writeFile(join(dir, "big.bin"), Buffer.alloc(9 * 1024 * 1024, 7));
    agent = await codingAgent(dir, [call("bash", { command: "rm big.bin notes.txt" }), { text: "done" }]);
    const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s7" });
    await turn(checkpoints, 1, "remove them");
    const plan = await checkpoints.rewind(1);
    expect(plan.conflicts).toEqual([
      { path: "big.bin", reason: "its content was not kept (too large, or the checkpoint store was full)" },
    ]);
    await expect(lstat(join(dir, "notes.txt"))).rejects.toThrow();
  });

  it("gives the fork the turns before the rewind, and names an unknown turn", async () => {
    agent = await codingAgent(dir, [call("write_file", { path: "b.txt", content: "b\n" }), { text: "ok" }]);
    const checkpoints = await Checkpoints.open({ dataDir, root: dir, sessionId: "s6" });
    await turn(checkpoints, 1, "write b");
    const fork = await checkpoints.continueAs("s6-fork", 1);
    expect(fork.turns()).toEqual([]);
    await expect(checkpoints.plan(7)).rejects.toSatisfy(
      (error) => error instanceof RewindError && error.code === "no_such_turn",
    );
  });
});
