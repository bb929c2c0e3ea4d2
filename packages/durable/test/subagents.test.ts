import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { RunEvent } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { diagnosis } from "./diagnosis.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { runEnded, sessionEvents, waitFor } from "./sessions.js";
import { WorkerProcess, workerFixture } from "./workers.js";

/** The child run's events the parent's session holds (carried as progress of the spawning call). */
function childEvents(events: readonly RunEvent[], callId: string): RunEvent[] {
  return events.flatMap((event) => {
    if (event.type !== "tool_progress" || event.toolCallId !== callId) return [];
    const data = event.data as { type?: string; event?: RunEvent };
    return data.type === "subagent_event" && data.event ? [data.event] : [];
  });
}

// A subagent spawned inside a durable run is durable too: its model requests and tool calls are steps
// recorded under the spawning call, replayed after a crash, not run again.
describe.skipIf(skipReason !== "")(`subagents of a durable run${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-subagents-");

  it("a worker SIGKILLed twice inside a subagent: no completed child request or call is repeated, and the result reaches the parent once", async () => {
    const schema = freshSchema("sub");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const runIds: string[] = [];
    const startWorker = async () => {
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      return worker;
    };
    const applied = (key: string) =>
      readEffects(logFile).some((line) => line.event === "applied" && line.key === key) ? true : undefined;
    try {
      const runId = await queue.enqueue({
        prompt: "calls=1 tag=sa tool=agent_spawn child=4",
        sessionId: "subagent",
      });
      runIds.push(runId);
      // Kill 1: after the child's second call took effect (its requests 0 and 1 are recorded by then).
      const first = await startWorker();
      await waitFor("the child's second effect", () => applied("sa-child-1"));
      await sleep(20);
      await first.kill();
      const answeredBefore = [...fx.provider.answered];
      // Kill 2: the worker that recovered it, the moment the child's third effect lands (mid-call).
      const second = await startWorker();
      await waitFor("the child's third effect", () => applied("sa-child-2"));
      await second.kill();
      const last = await startWorker();
      const info = await runEnded(queue, runId);
      await last.stop();
      expect(info.status, last.stderr).toBe("finished");
      expect(info.outcome).toMatchObject({ stopReason: "completed", finalText: "done sa" });

      // Every effect of the child once; no call began twice as a first attempt.
      const effects = readEffects(logFile);
      for (const key of ["sa-child-0", "sa-child-1", "sa-child-2", "sa-child-3"]) {
        const mine = effects.filter((line) => line.key === key);
        expect(
          mine.filter((line) => line.event === "applied"),
          key,
        ).toHaveLength(1);
        // At most once: a kill just after a call's "started" was recorded leaves no first attempt at all.
        expect(
          mine.filter((line) => line.event === "attempt" && !line.repeated).length,
          key,
        ).toBeLessThanOrEqual(1);
      }
      // The child's calls ran under its own run id, the same in every process that executed it.
      expect(new Set(effects.map((line) => line.runId)).size).toBe(1);

      // Requests completed before the first kill were not asked again; the parent's request with the
      // subagent's result was asked once.
      const count = (name: string) => fx.provider.answered.filter((answered) => answered === name).length;
      expect(answeredBefore).toEqual(expect.arrayContaining(["sa:0", "sa-child:0", "sa-child:1"]));
      expect(count("sa:0")).toBe(1);
      expect(count("sa-child:0")).toBe(1);
      expect(count("sa-child:1")).toBe(1);
      expect(count("sa:1")).toBe(1);
      // At most one request in flight per kill is asked again.
      const childRequests = fx.provider.answered.filter((name) => name.startsWith("sa-child:"));
      expect(childRequests.length).toBeLessThanOrEqual(5 + 2);

      // The parent's session: the spawn's result once, carrying the child's answer; the child's run
      // recorded under the spawning call, started once and completed once, with one run id.
      const events = await sessionEvents(schema, "subagent");
      expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index));
      const results = events.filter((event) => event.type === "tool_call_completed");
      expect(results).toHaveLength(1);
      const spawn = results[0];
      if (spawn?.type !== "tool_call_completed") throw new Error("no spawn result");
      expect(JSON.stringify(spawn.result.content)).toContain("done sa-child");
      const child = childEvents(events, spawn.result.toolCallId);
      expect(child.filter((event) => event.type === "run_started")).toHaveLength(1);
      expect(child.filter((event) => event.type === "run_completed")).toHaveLength(1);
      expect(new Set(child.map((event) => event.runId)).size).toBe(1);
      expect(child.every((event) => event.parentToolCallId === spawn.result.toolCallId)).toBe(true);
      expect(child.filter((event) => event.type === "tool_call_completed")).toHaveLength(4);
    } catch (error) {
      console.error(`subagent crash test failed:\n${await diagnosis(schema, runIds, logFile, workers)}`);
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

  it("a child's call that cannot tell, killed mid-call: a person is asked under the spawning call, and a no is kept", async () => {
    const schema = freshSchema("subb");
    const logFile = join(fx.dir, `${schema}.log`);
    const args = { databaseUrl, schema, providerUrl: fx.provider.baseUrl, logFile, concurrency: 1 };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const runIds: string[] = [];
    const startWorker = async () => {
      const worker = await WorkerProcess.start(fx.bundle, args);
      workers.push(worker);
      return worker;
    };
    const lines = (key: string, event: string) =>
      readEffects(logFile).filter((line) => line.key === key && line.event === event);
    try {
      const runId = await queue.enqueue({
        prompt: "calls=1 tag=sb tool=agent_spawn child=2 childtool=blind_effect",
        sessionId: "subagent-blind",
      });
      runIds.push(runId);
      const first = await startWorker();
      // blind_effect takes 400 ms: killed as it starts, its end is not recorded.
      await waitFor("the child's first call to start", () =>
        lines("sb-child-0", "attempt").length > 0 ? true : undefined,
      );
      await first.kill();
      const second = await startWorker();
      const [pending] = await waitFor("a person to be asked", async () => {
        const waiting = await queue.pendingApprovals(runId);
        return waiting.length > 0 ? waiting : undefined;
      });
      expect(pending).toMatchObject({
        kind: "repeat",
        attempt: 1,
        toolName: "blind_effect",
        toolCallId: "call_sb_0/call_sb-child_0",
        args: { key: "sb-child-0" },
      });
      await queue.decide(runId, pending?.toolCallId ?? "", { approved: false });
      const info = await runEnded(queue, runId);
      await second.stop();
      expect(info.status, second.stderr).toBe("finished");
      expect(info.outcome).toMatchObject({ stopReason: "completed", finalText: "done sb" });
      // Not run again; the child's next call ran once.
      expect(lines("sb-child-0", "attempt")).toHaveLength(1);
      expect(lines("sb-child-1", "applied")).toHaveLength(1);
      const events = await sessionEvents(schema, "subagent-blind");
      const child = childEvents(events, "call_sb_0");
      const notes = child.filter((event) => event.type === "tool_progress");
      expect(notes).toEqual([
        expect.objectContaining({
          toolCallId: "call_sb-child_0",
          data: { durable: "repeat", attempt: 1, ran: false, decidedBy: "person" },
        }),
      ]);
      const declined = child.find(
        (event) => event.type === "tool_call_completed" && event.result.toolCallId === "call_sb-child_0",
      );
      expect(declined).toMatchObject({ result: { isError: true, errorKind: "Denied" } });
    } catch (error) {
      console.error(`subagent repeat test failed:\n${await diagnosis(schema, runIds, logFile, workers)}`);
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
