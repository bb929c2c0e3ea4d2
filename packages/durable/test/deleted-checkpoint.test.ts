import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { runEnded, waitFor } from "./sessions.js";
import { deleteSteps } from "./tamper.js";
import { WorkerProcess, workerFixture } from "./workers.js";

// A database writer deletes checkpoints rather than editing them: an approved effect that already took
// place is never applied again; the run is refused and says why.
describe.skipIf(skipReason !== "")(`checkpoints deleted from the database${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-deleted-");

  /**
   * A run of two approved effects, stopped while it waits on the second (parked, its worker then killed).
   * `decide` continues it: the continuation replays the run's steps up to that wait.
   */
  const pausedAfterFirstEffect = async (tag: string) => {
    const schema = freshSchema(tag);
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const start = async () => {
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      return worker;
    };
    const waiting = (runId: string, key: string) =>
      waitFor(`the run to wait on ${key}`, async () => {
        const pending = await queue.pendingApprovals(runId);
        return pending.find((call) => JSON.stringify(call.args).includes(key));
      });
    const runId = await queue.enqueue({ prompt: `calls=2 tag=${tag} tool=guarded_effect`, sessionId: tag });
    const first = await start();
    const call0 = await waiting(runId, `${tag}-0`);
    await queue.decide(runId, call0.toolCallId, { approved: true });
    const call1 = await waiting(runId, `${tag}-1`);
    await first.kill();
    const close = async () => {
      await Promise.all(
        workers
          .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
          .map((worker) => worker.kill()),
      );
      await queue.close();
    };
    const applied = (key: string) =>
      readEffects(logFile).filter((line) => line.event === "applied" && line.key === key);
    /** The person approves the second call: the run is continued from its wait, replaying what came before. */
    const decideSecond = () => queue.decide(runId, call1.toolCallId, { approved: true });
    return { schema, queue, runId, call0: call0.toolCallId, start, close, applied, decideSecond };
  };

  it("a call's checkpoints deleted while later ones remain: refused, the approved effect is not applied again", async () => {
    const t = await pausedAfterFirstEffect("dg");
    try {
      expect(t.applied("dg-0")).toHaveLength(1);
      const names = [`started:${t.call0}:0`, `call:${t.call0}:0`];
      expect(await deleteSteps(t.schema, t.runId, { names })).toBe(2);
      await t.decideSecond();
      const worker = await t.start();
      const info = await runEnded(t.queue, t.runId);
      expect(info.status, worker.stderr).toBe("failed");
      expect(info.error).toMatch(
        new RegExp(
          `refused: the checkpoint of step started:${t.call0}:0 .* is missing from the database while later steps`,
        ),
      );
      expect(t.applied("dg-0")).toHaveLength(1);
      expect(t.applied("dg-1")).toHaveLength(0);
    } finally {
      await t.close();
    }
  });

  it("the newest checkpoints deleted, back to before an approved call: the session's record of its result refuses a second run", async () => {
    const t = await pausedAfterFirstEffect("dt");
    try {
      expect(t.applied("dt-0")).toHaveLength(1);
      // Everything from the call on: what remains looks like a run that was approved and never started.
      expect(await deleteSteps(t.schema, t.runId, { from: `started:${t.call0}:0` })).toBeGreaterThan(2);
      await t.decideSecond();
      const worker = await t.start();
      const info = await runEnded(t.queue, t.runId);
      expect(info.status, worker.stderr).toBe("failed");
      expect(info.error).toMatch(
        new RegExp(
          `refused: call ${t.call0} \\(guarded_effect\\) .* finished in an earlier execution .* checkpoints are gone`,
        ),
      );
      expect(t.applied("dt-0")).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it("a subagent's newest checkpoints deleted after its spawn finished: its call that cannot tell is refused, not run again", async () => {
    const schema = freshSchema("dc");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const start = async () => {
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      return worker;
    };
    try {
      // Two spawns, each a child making one blind call (400 ms): killed while the second child's runs.
      const runId = await queue.enqueue({
        prompt: "calls=2 tag=dc tool=agent_spawn child=1 childtool=blind_effect",
        sessionId: "dc",
      });
      const first = await start();
      await waitFor("the second child's call", () =>
        readEffects(logFile).filter((line) => line.event === "attempt").length >= 2 ? true : undefined,
      );
      await first.kill();
      const [firstChild] = readEffects(logFile).map((line) => line.runId);
      // Everything from the first child's call on: as if that child never made it.
      const from = "call_dc_0/started:call_dc-child_0:0";
      expect(await deleteSteps(schema, runId, { from })).toBeGreaterThan(2);
      const worker = await start();
      const info = await runEnded(queue, runId);
      expect(info.status, worker.stderr).toBe("failed");
      expect(info.error).toMatch(
        /refused: call call_dc_0\/call_dc-child_0 \(blind_effect\) .* finished in an earlier execution/,
      );
      const applied = readEffects(logFile).filter(
        (line) => line.runId === firstChild && line.event === "applied",
      );
      expect(applied).toHaveLength(1);
    } finally {
      await Promise.all(
        workers
          .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
          .map((worker) => worker.kill()),
      );
      await queue.close();
    }
  });
});
