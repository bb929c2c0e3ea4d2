import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { runEnded, waitFor } from "./sessions.js";
import { forgeDecision, tamper } from "./tamper.js";
import { WorkerProcess, workerFixture } from "./workers.js";

// A database writer edits what runs recorded; nothing runs that a person did not approve, and what was
// refused says so.
describe.skipIf(skipReason !== "")(`runs edited in the database${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-tamper-");

  const setup = async (prefix: string) => {
    const schema = freshSchema(prefix);
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const start = async () => {
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      return worker;
    };
    const close = async () => {
      await Promise.all(
        workers
          .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
          .map((worker) => worker.kill()),
      );
      await queue.close();
    };
    const pendingOf = (runId: string) =>
      waitFor("the run to wait for approval", async () => {
        const waiting = await queue.pendingApprovals(runId);
        return waiting.length > 0 ? waiting : undefined;
      });
    return { schema, logFile, queue, start, close, pendingOf };
  };

  it("a checkpointed model step rewritten after the person saw it: the run is refused, the call never runs", async () => {
    const t = await setup("tm");
    try {
      const runId = await t.queue.enqueue({ prompt: "calls=1 tag=tm tool=guarded_effect", sessionId: "tm" });
      const first = await t.start();
      const [pending] = await t.pendingOf(runId);
      expect(pending).toMatchObject({ args: { key: "tm-0" } });
      await first.kill();
      // The model's turn now asks for another effect; the person approves what they were shown.
      expect(await tamper(t.schema, runId, "step", "tm-0", "xx-0", "model:0")).toBeGreaterThan(0);
      expect((await t.queue.pendingApprovals(runId))[0]).toMatchObject({ args: { key: "tm-0" } });
      await t.queue.decide(runId, pending?.toolCallId ?? "", { approved: true });
      const second = await t.start();
      const info = await runEnded(t.queue, runId);
      expect(info.status, second.stderr).toBe("failed");
      expect(info.error).toMatch(/refused: the checkpoint of step model:0 .* was changed in the database/);
      expect(readEffects(t.logFile)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("an edited pending call is refused to the person, and a forged decision is refused by the worker", async () => {
    const t = await setup("tp");
    try {
      const runId = await t.queue.enqueue({ prompt: "calls=1 tag=tp tool=guarded_effect", sessionId: "tp" });
      await t.start();
      const [pending] = await t.pendingOf(runId);
      expect(await tamper(t.schema, runId, "pending", "tp-0", "yy-0")).toBeGreaterThan(0);
      await expect(t.queue.pendingApprovals(runId)).rejects.toMatchObject({ code: "envelope_tampered" });
      await expect(
        t.queue.decide(runId, pending?.toolCallId ?? "", { approved: true }),
      ).rejects.toMatchObject({ code: "envelope_tampered" });
      const [listed] = await t.queue.list();
      expect(listed?.tampered).toMatch(/what run .* waits on was changed in the database/);
      // A decision written without the key (the run is parked: a worker's sweep continues it to take the
      // decision): the run refuses it rather than run anything.
      await forgeDecision(t.schema, runId, `bridle.decision:${pending?.toolCallId}`, {
        body: JSON.stringify({
          toolCallId: pending?.toolCallId,
          kind: "approval",
          args: "sha256:0",
          approved: true,
        }),
        seal: "hmac-sha256:0",
      });
      const info = await runEnded(t.queue, runId);
      expect(info.status).toBe("failed");
      expect(info.error).toMatch(/refused: the decision on call \S+ was changed in the database/);
      expect(readEffects(t.logFile)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("a parked run's link to its continuation edited: shown as refused, not continued, nothing runs", async () => {
    const t = await setup("tl");
    try {
      const runId = await t.queue.enqueue({ prompt: "calls=1 tag=tl tool=guarded_effect", sessionId: "tl" });
      await t.start();
      const [pending] = await t.pendingOf(runId);
      // Parked: where its continuation starts is in its sealed output.
      await waitFor("the run to park", async () => ((await t.queue.get(runId))?.executor ? undefined : true));
      expect(await tamper(t.schema, runId, "outcome", '\\"resumeAt\\":', '\\"resumeAt\\":1')).toBeGreaterThan(
        0,
      );
      const listed = await t.queue.get(runId);
      expect(listed?.tampered).toMatch(/the outcome of run .* was changed in the database/);
      await expect(
        t.queue.decide(runId, pending?.toolCallId ?? "", { approved: true }),
      ).rejects.toMatchObject({ code: "invalid_argument" });
      expect(await t.queue.pendingApprovals(runId)).toEqual([]);
      expect(readEffects(t.logFile)).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("a queued run's options edited before a worker takes it: shown as refused, never executed", async () => {
    const t = await setup("to");
    try {
      const runId = await t.queue.enqueue({
        prompt: "calls=1 tag=to tool=guarded_effect",
        sessionId: "to",
        options: { yes: false },
      });
      // --yes slipped in: the call would run without the person.
      expect(await tamper(t.schema, runId, "request", "false", "true")).toBeGreaterThan(0);
      const listed = await t.queue.get(runId);
      expect(listed?.request).toBeUndefined();
      expect(listed?.tampered).toMatch(/the request of run .* was changed in the database/);
      await t.start();
      const info = await runEnded(t.queue, runId);
      expect(info.status).toBe("failed");
      expect(info.error).toMatch(/refused: the request of run/);
      expect(readEffects(t.logFile)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
