import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DbosRunQueue, RUN_FORMAT_VERSION } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { diagnosis } from "./diagnosis.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { runEnded, sessionEvents, waitFor } from "./sessions.js";
import { WorkerProcess, workerFixture } from "./workers.js";

// A run waiting for a person does not hold its worker's slot: it parks, and answering it continues it.
describe.skipIf(skipReason !== "")(`a run waiting for a person holds no slot${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-slot-");

  it("a worker of one slot holding a waiting run finishes a second run, then the first once approved, each effect once", async () => {
    const schema = freshSchema("slot");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const ids: string[] = [];
    try {
      const waiting = await queue.enqueue({ prompt: "calls=2 tag=wa tool=guarded_effect", sessionId: "wa" });
      ids.push(waiting);
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      const [pending] = await waitFor("the run to wait for a person", async () => {
        const found = await queue.pendingApprovals(waiting);
        return found.length > 0 ? found : undefined;
      });
      expect(pending).toMatchObject({ toolName: "guarded_effect", kind: "approval", args: { key: "wa-0" } });
      // The worker says so in one line; the list shows one run, waiting, on what, held by no process.
      await waitFor("the worker's line", () =>
        worker.stderr.includes(`run ${waiting} waits for a person: approval of guarded_effect`)
          ? true
          : undefined,
      );
      const shown = await waitFor("the run to be parked", async () => {
        const info = await queue.get(waiting);
        return info?.executor === undefined ? info : undefined;
      });
      expect(shown).toMatchObject({ status: "running", waitingOn: [{ toolCallId: pending?.toolCallId }] });
      expect(shown?.lastStep?.name).toBe("model:0");
      expect((await queue.list()).filter((run) => run.runId === waiting)).toHaveLength(1);

      // The one slot is free: a second run is taken up and finished while the first waits.
      const other = await queue.enqueue({ prompt: "calls=2 tag=wb", sessionId: "wb" });
      ids.push(other);
      const second = await runEnded(queue, other);
      expect(second).toMatchObject({
        status: "finished",
        outcome: { stopReason: "completed", finalText: "done wb" },
      });
      expect(await queue.pendingApprovals(waiting)).toHaveLength(1);
      expect(readEffects(logFile).filter((line) => line.runId === waiting)).toEqual([]);

      // Approved: the run goes on where it stopped, in the same worker, and asks about its second call.
      await queue.decide(waiting, pending?.toolCallId ?? "", { approved: true });
      // Answered, the wait is over at once, before its continuation runs: it is not listed, and a second
      // answer is refused (a client polling the list, as the eval's queue does, decides each wait once).
      await expect(
        queue.decide(waiting, pending?.toolCallId ?? "", { approved: false, reason: "changed my mind" }),
      ).rejects.toThrow(/decided already; the first decision stands/);
      const listed: string[] = [];
      const [next] = await waitFor("the second call to wait", async () => {
        const found = await queue.pendingApprovals(waiting);
        listed.push(...found.map((item) => item.toolCallId));
        return found[0] && found[0].toolCallId !== pending?.toolCallId ? found : undefined;
      });
      // While the continuation replayed up to its next wait, the answered one was never listed again.
      expect(listed).not.toContain(pending?.toolCallId);
      expect(next).toMatchObject({ args: { key: "wa-1" } });
      await queue.decide(waiting, next?.toolCallId ?? "", { approved: false, reason: "one is enough" });
      const first = await runEnded(queue, waiting);
      expect(first).toMatchObject({
        status: "finished",
        outcome: { stopReason: "completed", finalText: "done wa" },
      });

      const applied = readEffects(logFile).filter((line) => line.event === "applied");
      expect(applied.map((line) => `${line.runId}/${line.key}`).sort()).toEqual(
        [`${other}/wb-0`, `${other}/wb-1`, `${waiting}/wa-0`].sort(),
      );
      // The session holds one run, its events stored once, and each wait's request and answer once.
      const events = await sessionEvents(schema, "wa");
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
      expect(events.filter((event) => event.type === "run_started")).toHaveLength(1);
      expect(events.filter((event) => event.type === "approval_requested")).toHaveLength(2);
      expect(events.flatMap((event) => (event.type === "approval_resolved" ? [event.decision] : []))).toEqual(
        [{ approved: true }, { approved: false, reason: "one is enough" }],
      );
      expect(events.filter((event) => event.type === "run_completed")).toHaveLength(1);
      expect(JSON.stringify(events)).not.toContain("approval could not be obtained");
    } catch (error) {
      console.error(await diagnosis(schema, ids, logFile, workers));
      throw error;
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await queue.close();
    }
  }, 180_000);

  it("a run recorded by an older run format is not answered here: decide says so, naming both versions", async () => {
    const schema = freshSchema("oldfmt");
    const older = await DbosRunQueue.open({ databaseUrl, schema, appVersion: "bridle-run-3" });
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    try {
      const runId = await older.enqueue({ prompt: "calls=1 tag=of tool=guarded_effect", sessionId: "of" });
      await expect(queue.decide(runId, "call_0_0", { approved: true })).rejects.toMatchObject({
        code: "invalid_argument",
        message: expect.stringContaining(
          `was recorded by run format bridle-run-3, and this is ${RUN_FORMAT_VERSION}`,
        ),
      });
    } finally {
      await older.close();
      await queue.close();
    }
  });
});
