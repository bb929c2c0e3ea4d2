import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApprovalRequest, type Approver, type RunEvent, textOf } from "@bridle/core";
import { afterEach, describe, expect, it } from "vitest";
import { approveAll, call, codingAgent, gitIn, tempRepo, writeFiles } from "./repo.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function results(events: RunEvent[]): { name: string; text: string; kind: string | undefined }[] {
  return events.flatMap((event) =>
    event.type === "tool_call_completed"
      ? [{ name: event.result.toolName, text: textOf(event.result.content), kind: event.result.errorKind }]
      : [],
  );
}

async function repoWithIdentity(files: Record<string, string>) {
  const repo = await tempRepo(files);
  cleanups.push(repo.cleanup);
  gitIn(repo.dir, "config", "user.name", "Repo Person");
  gitIn(repo.dir, "config", "user.email", "repo@example.com");
  return repo;
}

describe("git_commit", () => {
  it("commits only the agent's own changes, leaving the user's staged work staged", async () => {
    const repo = await repoWithIdentity({ "src/a.ts": "a\n", "src/user.ts": "u\n" });
    await writeFiles(repo.dir, { "src/user.ts": "user edit\n" });
    gitIn(repo.dir, "add", "src/user.ts");
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      decide: async (request) => {
        asked.push(request);
        return { approved: true };
      },
    };
    const agent = await codingAgent(
      repo.dir,
      [
        call("read_file", { path: "src/a.ts" }),
        call("write_file", { path: "src/a.ts", content: "b\n" }),
        call("write_file", { path: "src/new.ts", content: "new\n" }),
        call("git_commit", { message: "change a, add new" }),
        { text: "done" },
      ],
      { approver },
    );
    cleanups.push(() => agent.close());
    const { events, result } = await agent.run("change a and commit");
    expect(result.stopReason).toBe("completed");
    const commit = results(events).find((entry) => entry.name === "git_commit");
    expect(commit?.kind).toBeUndefined();
    expect(commit?.text).toMatch(/^committed [0-9a-f]+ change a, add new/);
    expect(asked.map((request) => request.toolCall.name)).toContain("git_commit");
    expect(gitIn(repo.dir, "show", "--name-only", "--format=%an <%ae>", "HEAD").trim().split("\n")).toEqual([
      "Repo Person <repo@example.com>",
      "",
      "src/a.ts",
      "src/new.ts",
    ]);
    // The user's staged change is still staged and not in the commit.
    expect(gitIn(repo.dir, "diff", "--cached", "--name-only").trim()).toBe("src/user.ts");
  });

  it("runs none of the repository's hooks, filters, fsmonitor or signing programs", async () => {
    const repo = await repoWithIdentity({ "a.txt": "a\n", ".gitattributes": "*.txt filter=evil\n" });
    const canary = await mkdtemp(join(tmpdir(), "bridle-canary-"));
    cleanups.push(() => rm(canary, { recursive: true, force: true }));
    const touch = (name: string) => `touch ${join(canary, name)}`;
    gitIn(repo.dir, "config", "core.fsmonitor", touch("fsmonitor"));
    gitIn(repo.dir, "config", "filter.evil.clean", `sh -c '${touch("filter")}; cat'`);
    gitIn(repo.dir, "config", "commit.gpgSign", "true");
    gitIn(repo.dir, "config", "gpg.program", join(canary, "gpg.sh"));
    await writeFiles(repo.dir, {
      ".git/hooks/pre-commit": `#!/bin/sh\n${touch("pre-commit")}\n`,
      ".git/hooks/post-commit": `#!/bin/sh\n${touch("post-commit")}\n`,
      ".git/hooks/commit-msg": `#!/bin/sh\n${touch("commit-msg")}\n`,
    });
    for (const hook of ["pre-commit", "post-commit", "commit-msg"]) {
      await chmod(join(repo.dir, ".git", "hooks", hook), 0o755);
    }
    const agent = await codingAgent(
      repo.dir,
      [
        call("read_file", { path: "a.txt" }),
        call("write_file", { path: "a.txt", content: "b\n" }),
        call("git_commit", { message: "b" }),
        { text: "done" },
      ],
      { approver: approveAll },
    );
    cleanups.push(() => agent.close());
    const { events } = await agent.run("commit");
    expect(results(events).find((entry) => entry.name === "git_commit")?.kind).toBeUndefined();
    expect(gitIn(repo.dir, "log", "-1", "--format=%s").trim()).toBe("b");
    for (const name of ["fsmonitor", "filter", "pre-commit", "post-commit", "commit-msg", "gpg"]) {
      expect(existsSync(join(canary, name)), name).toBe(false);
    }
  });

  it("refuses protected, secret and outside paths, and waits for a person", async () => {
    const repo = await repoWithIdentity({ "a.txt": "a\n" });
    await writeFiles(repo.dir, { ".env": "TOKEN=1\n" });
    const agent = await codingAgent(
      repo.dir,
      [
        call("git_commit", { message: "x", paths: [".git/config"] }),
        call("git_commit", { message: "x", paths: [".env"] }),
        call("git_commit", { message: "x", paths: ["../elsewhere"] }),
        call("git_commit", { message: "x", paths: ["bridle.config.json"] }),
        call("git_commit", { message: "x" }),
        { text: "done" },
      ],
      { approver: approveAll },
    );
    cleanups.push(() => agent.close());
    const { events } = await agent.run("commit");
    const commits = results(events).filter((entry) => entry.name === "git_commit");
    expect(commits.map((entry) => entry.kind)).toEqual([
      "Denied",
      "Denied",
      "Denied",
      "Denied",
      "InvalidInput",
    ]);
    expect(commits[4]?.text).toMatch(/changed no files/);
    expect(gitIn(repo.dir, "rev-list", "--count", "HEAD").trim()).toBe("1");

    // A person who says no: the call is refused before git runs.
    await writeFiles(repo.dir, { "a.txt": "changed\n" });
    const refuse: Approver = { decide: async () => ({ approved: false, reason: "nobody to ask" }) };
    const denied = await codingAgent(
      repo.dir,
      [call("git_commit", { message: "x", paths: ["a.txt"] }), { text: "done" }],
      { approver: refuse },
    );
    cleanups.push(() => denied.close());
    const run = await denied.run("commit");
    const refused = results(run.events).find((entry) => entry.name === "git_commit");
    expect(refused?.kind).toBe("Denied");
    expect(refused?.text).toMatch(/nobody to ask/);
    expect(gitIn(repo.dir, "rev-list", "--count", "HEAD").trim()).toBe("1");
  });
});
