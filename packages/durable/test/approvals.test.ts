import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { sessionEvents, waitFor } from "./sessions.js";
import { WorkerProcess, workerFixture } from "./workers.js";

describe.skipIf(skipReason !== "")(`durable approvals${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-approvals-");

  it("a run paused for approval in one process is approved from another and finished by a third", async () => {
    const schema = freshSchema("ap");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    try {
      const runId = await queue.enqueue({
        prompt: "calls=1 tag=ap tool=guarded_effect",
        sessionId: "approve-me",
      });
      const first = await WorkerProcess.start(fx.bundle, args);
      const [pending] = await waitFor("the run to wait for approval", async () => {
        const waiting = await queue.pendingApprovals(runId);
        return waiting.length > 0 ? waiting : undefined;
      });
      expect(pending).toMatchObject({ toolName: "guarded_effect", kind: "approval", args: { key: "ap-0" } });
      // The process holding the paused run goes away; nothing ran.
      await first.kill();
      expect(readEffects(logFile)).toEqual([]);
      // Deciding a call the run does not wait on is refused.
      await expect(queue.decide(runId, "call_nope", { approved: true })).rejects.toMatchObject({
        code: "invalid_argument",
      });
      // Approved from this process (no engine here), finished by a new worker that recovers the run.
      await queue.decide(runId, pending?.toolCallId ?? "", { approved: true });
      const second = await WorkerProcess.start(fx.bundle, args);
      const info = await queue.wait(runId);
      await second.stop();
      expect(info.status).toBe("finished");
      expect(info.outcome).toMatchObject({ stopReason: "completed", finalText: "done ap" });
      const applied = readEffects(logFile).filter((line) => line.event === "applied");
      expect(applied.map((line) => line.pid)).toEqual([second.child.pid]);
      const events = await sessionEvents(schema, "approve-me");
      expect(events.filter((event) => event.type === "approval_requested")).toHaveLength(1);
      expect(events.find((event) => event.type === "approval_resolved")).toMatchObject({
        decision: { approved: true },
      });
      expect(await queue.pendingApprovals(runId)).toEqual([]);
    } finally {
      await queue.close();
    }
  }, 120_000);

  it("a call that cannot tell whether it ran is not run again after a crash unless a person says so", async () => {
    const schema = freshSchema("blind");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    try {
      const runId = await queue.enqueue({ prompt: "calls=1 tag=bl tool=blind_effect", sessionId: "blind" });
      const first = await WorkerProcess.start(fx.bundle, args);
      // Killed inside the call (its effect takes 400 ms).
      await waitFor("the call to start", () => (readEffects(logFile).length > 0 ? true : undefined));
      await first.kill();
      const second = await WorkerProcess.start(fx.bundle, args);
      const [pending] = await waitFor("the repeat to wait for a decision", async () => {
        const waiting = await queue.pendingApprovals(runId);
        return waiting.length > 0 ? waiting : undefined;
      });
      expect(pending).toMatchObject({ toolName: "blind_effect", kind: "repeat" });
      await queue.decide(runId, pending?.toolCallId ?? "", { approved: false, reason: "checked by hand" });
      const info = await queue.wait(runId);
      await second.stop();
      expect(info.outcome?.stopReason).toBe("completed");
      // One attempt only: the one in flight when the first worker died.
      expect(readEffects(logFile).filter((line) => line.event === "attempt")).toHaveLength(1);
      const events = await sessionEvents(schema, "blind");
      const result = events.find((event) => event.type === "tool_call_completed");
      expect(JSON.stringify(result)).toContain("not run again");
    } finally {
      await queue.close();
    }
  }, 120_000);
});
