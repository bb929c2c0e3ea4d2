import { randomInt } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { diagnosis } from "./diagnosis.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { comparable, runEnded, sessionEvents, waitFor } from "./sessions.js";
import { WorkerProcess, workerFixture } from "./workers.js";

describe.skipIf(skipReason !== "")(`SIGKILLed workers${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-crash-");

  it("a run killed mid-run again and again is finished by another worker: each call's effect once, the transcript of an uninterrupted run", async () => {
    const schema = freshSchema("crash");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const prompt = "calls=14 tag=crash";
    const kills = 10;
    // Every worker of the test, killed or not, and the runs: a failure prints what they left behind.
    const workers: WorkerProcess[] = [];
    const runIds: string[] = [];
    const startWorker = async () => {
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      return worker;
    };
    try {
      const runId = await queue.enqueue({ prompt, sessionId: "crashed" });
      runIds.push(runId);
      for (let trial = 0; trial < kills; trial++) {
        const seen = readEffects(logFile).length;
        const worker = await startWorker();
        // Half the kills land just after a call started (inside or around its effect), half anywhere.
        if (trial % 2 === 0) {
          // (Or the run ends: a kill after its last call leaves only steps that replay.)
          await waitFor("a call to start, or the run to end", async () =>
            readEffects(logFile).length > seen || (await queue.get(runId))?.status === "finished"
              ? true
              : undefined,
          );
          await sleep(randomInt(0, 45));
        } else {
          await sleep(randomInt(0, 400));
        }
        await worker.kill();
        const info = await queue.get(runId);
        if (info?.status === "finished") break;
      }
      const last = await startWorker();
      const info = await runEnded(queue, runId);
      await last.stop();
      expect(info.status, last.stderr).toBe("finished");
      expect(info.outcome?.stopReason).toBe("completed");

      // The same prompt, never interrupted, in a session of its own.
      const reference = await startWorker();
      const referenceId = await queue.enqueue({ prompt, sessionId: "reference" });
      runIds.push(referenceId);
      expect((await runEnded(queue, referenceId)).status).toBe("finished");
      await reference.stop();

      const effects = readEffects(logFile).filter((line) => line.runId === runId);
      const calls = new Set(effects.map((line) => line.callId));
      expect(calls.size).toBe(14);
      let repeats = 0;
      let detected = 0;
      for (const callId of calls) {
        const mine = effects.filter((line) => line.callId === callId);
        // Applied exactly once, whatever happened; at most one attempt thought it was the first (none, when
        // a process died between recording "started" and starting the tool).
        expect(
          mine.filter((line) => line.event === "applied"),
          callId,
        ).toHaveLength(1);
        const attempts = mine.filter((line) => line.event === "attempt");
        expect(attempts.filter((line) => !line.repeated).length, callId).toBeLessThanOrEqual(1);
        repeats += attempts.length - 1;
        // A repeat that came after the effect landed detected it (its next line is "detected", not
        // "applied"); one that came before the effect landed applied it, once.
        let landed = false;
        for (const [index, line] of mine.entries()) {
          if (line.event === "applied") landed = true;
          if (line.event === "attempt" && line.repeated && landed) {
            // Its next line is "detected" (or none: its process was killed right there).
            const next = mine.slice(index + 1).find((later) => later.pid === line.pid);
            expect(next?.event ?? "detected", callId).toBe("detected");
            if (next) detected++;
          }
        }
      }
      console.log(
        `crash test: ${kills} kills, ${repeats} in-flight calls run again, ${detected} of them after their effect had landed (detected)`,
      );

      const crashed = await sessionEvents(schema, "crashed");
      const untouched = await sessionEvents(schema, "reference");
      expect(comparable(crashed)).toEqual(comparable(untouched));
      // Each event of the run stored once, in order; apart from the notes recording each repeat, the
      // same events as the uninterrupted run.
      expect(crashed.map((event) => event.seq)).toEqual(crashed.map((_, index) => index));
      // Every repeat the tool saw has its note; a worker killed after recording a repeat's note and before
      // the tool started leaves a note with no attempt line, so there may be more notes, never fewer.
      const notes = crashed.filter((event) => event.type === "tool_progress");
      expect(notes.length).toBeGreaterThanOrEqual(repeats);
      for (const note of notes)
        expect(note).toMatchObject({ data: { durable: "repeat", ran: true, decidedBy: "tool" } });
      const types = (events: typeof crashed) =>
        events.filter((event) => event.type !== "tool_progress").map((event) => event.type);
      expect(types(crashed)).toEqual(types(untouched));
    } catch (error) {
      console.error(
        `crash test failed; what the run left:\n${await diagnosis(schema, runIds, logFile, workers)}`,
      );
      throw error;
    } finally {
      await Promise.all(
        workers
          .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
          .map((worker) => worker.kill()),
      );
      await queue.close();
    }
  }, 300_000);
});
