import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { diagnosis } from "./diagnosis.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { runEnded, sessionEvents, waitFor } from "./sessions.js";
import { WorkerProcess, workerFixture } from "./workers.js";

describe.skipIf(skipReason !== "")(`three workers, thirty runs${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-workers-");

  it("all 30 complete, none twice, and a worker SIGKILLed midway loses nothing", async () => {
    const schema = freshSchema("w3");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 2 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers = await Promise.all([0, 1, 2].map(() => WorkerProcess.start(fx.bundle, args)));
    const ids: string[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        ids.push(await queue.enqueue({ prompt: `calls=3 tag=r${i}`, sessionId: `run-${i}` }));
      }
      // Kill one worker once it has done some work, while it holds runs (2 at a time, 30 queued).
      const victim = workers[0] as WorkerProcess;
      await waitFor("the first worker to apply three effects", () =>
        readEffects(logFile).filter((line) => line.event === "applied" && line.pid === victim.child.pid)
          .length >= 3
          ? true
          : undefined,
      );
      await victim.kill();
      const killedAt = readEffects(logFile).length;

      const infos = await Promise.all(ids.map((id) => runEnded(queue, id)));
      for (const info of infos) {
        expect(info.status, workers.map((w) => w.stderr).join("\n")).toBe("finished");
        expect(info.outcome?.stopReason).toBe("completed");
      }
      const effects = readEffects(logFile);
      const applied = effects.filter((line) => line.event === "applied");
      // Every run's three effects, each exactly once.
      expect(applied).toHaveLength(90);
      expect(new Set(applied.map((line) => `${line.runId}/${line.callId}`)).size).toBe(90);
      expect(new Set(applied.map((line) => line.runId))).toEqual(new Set(ids));
      // The survivors did the rest.
      expect(effects.slice(killedAt).every((line) => line.pid !== victim.child.pid)).toBe(true);
      // Each session holds one run, its events stored once.
      for (let i = 0; i < 30; i++) {
        const events = await sessionEvents(schema, `run-${i}`);
        expect(events.filter((event) => event.type === "run_started")).toHaveLength(1);
        expect(events.filter((event) => event.type === "run_completed")).toHaveLength(1);
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
      }
      const byWorker = workers.map(
        (worker) => applied.filter((line) => line.pid === worker.child.pid).length,
      );
      console.log(`30 runs over 3 workers (first killed): effects applied per worker ${byWorker.join(", ")}`);
    } catch (error) {
      console.error(
        `workers test failed; what the runs left:\n${await diagnosis(schema, ids, logFile, workers)}`,
      );
      throw error;
    } finally {
      await Promise.all(workers.slice(1).map((worker) => worker.stop()));
      await queue.close();
    }
  }, 300_000);
});
