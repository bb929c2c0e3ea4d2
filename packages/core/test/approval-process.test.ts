import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RunResult } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../src/resume-envelope.js";
import { bundleChild, expectWellFormed, resultText } from "./helpers.js";

const run = promisify(execFile);
const childSource = fileURLToPath(new URL("./fixtures/approval-child.ts", import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
let child: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-approval-"));
  child = join(dir, "child.mjs");
  await bundleChild(childSource, child);
});
afterAll(() => cleanup());

/** Runs the child as a user whose config folder (and so approval key) is `user`'s. */
async function node(...args: string[]): Promise<void> {
  await nodeAs("alice", ...args);
}

async function nodeAs(user: string, ...args: string[]): Promise<void> {
  await run(process.execPath, [child, ...args], {
    cwd: dir,
    env: { ...process.env, XDG_CONFIG_HOME: join(dir, `config-${user}`) },
  });
}

async function readJson<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(dir, name), "utf8")) as T;
}

describe("approval round trip across processes", () => {
  it("pauses in one process and resumes from the envelope on disk in another", async () => {
    await node("pause", dir);
    const paused = await readJson<RunResult>("paused.json");
    expect(paused.stopReason).toBe("approval_required");
    await expect(readFile(join(dir, "executed.log"), "utf8")).rejects.toThrow(/ENOENT/);

    // A refused resume (decisions missing c3) runs nothing and leaves the envelope usable.
    await node("resume", dir, JSON.stringify({ c1: { approved: true } }));
    expect(await readJson<{ code: string }>("refused.json")).toMatchObject({
      code: "approval_decisions_mismatch",
    });
    await expect(readFile(join(dir, "executed.log"), "utf8")).rejects.toThrow(/ENOENT/);

    await node(
      "resume",
      dir,
      JSON.stringify({ c1: { approved: true }, c3: { approved: false, reason: "frozen" } }),
    );
    const resumed = await readJson<RunResult>("resumed.json");
    expect(resumed.stopReason).toBe("completed");
    expect(resumed.finalText).toBe("finished");
    expect(resumed.runId).toBe(paused.runId);
    const executed = (await readFile(join(dir, "executed.log"), "utf8")).trim().split("\n");
    // Each tool ran once, both in the resuming process (one pid), never the rejected deploy:db.
    expect(executed.map((line) => line.split("@")[0]).sort()).toEqual(["deploy:api", "status"]);
    expect(new Set(executed.map((line) => line.split("@")[1])).size).toBe(1);
    const tools = resumed.messages.filter((m) => m.role === "tool");
    expect(tools.map(resultText)).toEqual([
      "deployed api",
      "all green",
      "ApprovalRejected: the user rejected this call: frozen",
    ]);
    expectWellFormed(resumed.messages);
    expect(resumed.usage.modelRequests).toBe(2);
    expect(resumed.usage.toolCalls).toBe(3);
    expect(resumed.usage.tokens.inputTokens).toBe(20);
  });

  it("refuses an envelope edited on disk, in the resuming process, and runs nothing", async () => {
    await writeFile(join(dir, "executed.log"), "");
    await node("pause", dir);
    const text = await readFile(join(dir, "envelope.json"), "utf8");
    await writeFile(
      join(dir, "envelope.json"),
      text.replace('\\"service\\":\\"db\\"', '\\"service\\":\\"prod\\"'),
    );
    await node("resume", dir, JSON.stringify({ c1: { approved: true }, c3: { approved: true } }));
    expect(await readJson<{ code: string }>("refused.json")).toMatchObject({ code: "envelope_tampered" });
    expect(await readFile(join(dir, "executed.log"), "utf8")).toBe("");
  });

  it("refuses an edited envelope whose seal was recomputed without the key (the old unkeyed digest)", async () => {
    await writeFile(join(dir, "executed.log"), "");
    await rm(join(dir, "refused.json"), { force: true });
    await node("pause", dir);
    const envelope = await readJson<Record<string, unknown>>("envelope.json");
    const { integrity: _old, ...body } = JSON.parse(
      JSON.stringify(envelope).replace('\\"service\\":\\"db\\"', '\\"service\\":\\"prod\\"'),
    ) as Record<string, unknown>;
    expect(JSON.stringify(body)).toContain("prod");
    const forged = {
      ...body,
      integrity: `sha256:${createHash("sha256").update(canonicalJson(body)).digest("hex")}`,
    };
    await writeFile(join(dir, "envelope.json"), JSON.stringify(forged));
    await node("resume", dir, JSON.stringify({ c1: { approved: true }, c3: { approved: true } }));
    const refused = await readJson<{ code: string; message: string }>("refused.json");
    expect(refused).toMatchObject({ code: "envelope_tampered" });
    expect(refused.message).toMatch(/not sealed with a key/);
    expect(await readFile(join(dir, "executed.log"), "utf8")).toBe("");
  });

  it("refuses, in a process of another user (another key), an envelope this user paused", async () => {
    await writeFile(join(dir, "executed.log"), "");
    await rm(join(dir, "refused.json"), { force: true });
    await node("pause", dir);
    await nodeAs(
      "mallory",
      "resume",
      dir,
      JSON.stringify({ c1: { approved: true }, c3: { approved: true } }),
    );
    expect(await readJson<{ code: string }>("refused.json")).toMatchObject({ code: "envelope_tampered" });
    expect(await readFile(join(dir, "executed.log"), "utf8")).toBe("");
  });
});
