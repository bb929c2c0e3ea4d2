import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { diagnosis } from "./diagnosis.js";
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

  it("a call that cannot tell whether it ran is not run again after a crash unless a person says so (--yes does not)", async () => {
    const schema = freshSchema("blind");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    try {
      // Started with --yes (every approval answered): a repeat is still a person's decision.
      const runId = await queue.enqueue({
        prompt: "calls=1 tag=bl tool=blind_effect",
        sessionId: "blind",
        options: { yes: true },
      });
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
      // The person's reason reaches the model with the refusal.
      expect(JSON.stringify(result)).toContain("the user declined to run it a second time: checked by hand.");
    } finally {
      await queue.close();
    }
  }, 120_000);

  it("an approved repeat records its own start: killed after its effect, it is not run a third time without a person", async () => {
    const schema = freshSchema("again");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const repeatAsk = async (attempt: number) => {
      const [pending] = await waitFor(`repeat ${attempt} to wait for a decision`, async () => {
        const waiting = await queue.pendingApprovals(runId);
        return waiting[0]?.attempt === attempt ? waiting : undefined;
      });
      return pending;
    };
    let runId = "";
    try {
      runId = await queue.enqueue({ prompt: "calls=1 tag=ag tool=blind_effect", sessionId: "again" });
      const first = await WorkerProcess.start(fx.bundle, args);
      workers.push(first);
      await waitFor("the call to start", () => (readEffects(logFile).length > 0 ? true : undefined));
      await first.kill();
      const second = await WorkerProcess.start(fx.bundle, args);
      workers.push(second);
      const one = await repeatAsk(1);
      expect(one).toMatchObject({ toolName: "blind_effect", kind: "repeat", attempt: 1 });
      // The worker says so, in one line.
      await waitFor("the worker to say the run waits", () =>
        second.stderr.includes(`run ${runId} waits for a person: repeat 1 of blind_effect`)
          ? true
          : undefined,
      );
      await queue.decide(runId, one?.toolCallId ?? "", { approved: true });
      // The approved repeat applies its effect; the worker dies before its result is recorded.
      await waitFor("the repeat's effect", () =>
        readEffects(logFile).some((line) => line.pid === second.child.pid && line.event === "applied")
          ? true
          : undefined,
      );
      await second.kill();
      const third = await WorkerProcess.start(fx.bundle, args);
      workers.push(third);
      // Not run again silently: the next worker asks about a second repeat.
      const two = await repeatAsk(2);
      expect(two).toMatchObject({ kind: "repeat", attempt: 2 });
      await queue.decide(runId, two?.toolCallId ?? "", { approved: false, reason: "it landed" });
      const info = await queue.wait(runId);
      await third.stop();
      expect(info.outcome?.stopReason).toBe("completed");
      const attempts = readEffects(logFile).filter((line) => line.event === "attempt");
      expect(attempts.map((line) => line.pid)).toEqual([first.child.pid, second.child.pid]);
      expect(attempts.map((line) => line.repeated)).toEqual([false, true]);
      // Each repeat is in the session, with who decided it.
      const events = await sessionEvents(schema, "again");
      expect(events.filter((event) => event.type === "tool_progress").map((event) => event.data)).toEqual([
        { durable: "repeat", attempt: 1, ran: true, decidedBy: "person" },
        { durable: "repeat", attempt: 2, ran: false, decidedBy: "person" },
      ]);
      expect(JSON.stringify(events.find((event) => event.type === "tool_call_completed"))).toContain(
        "not run again",
      );
    } catch (error) {
      console.error(await diagnosis(schema, [runId], logFile, workers));
      throw error;
    } finally {
      await Promise.all(
        workers
          .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
          .map((worker) => worker.kill()),
      );
      await queue.close();
    }
  }, 120_000);
});
