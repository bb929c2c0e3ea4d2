import { join } from "node:path";
import { projectTranscript, type RunEvent } from "@bridle/core";
import { PostgresSessionStore } from "@bridle/store-postgres";
import { describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { readEffects } from "./fixtures/effect-tools.js";
import { WorkerProcess, workerFixture } from "./workers.js";

describe.skipIf(skipReason !== "")(`queued runs on worker processes${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-queue-");

  it("one worker runs two queued runs to the end", async () => {
    const schema = freshSchema("q1");
    const logFile = join(fx.dir, "q1.log");
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const worker = await WorkerProcess.start(fx.bundle, {
      databaseUrl,
      schema,
      providerUrl: fx.provider.baseUrl,
      logFile,
      concurrency: 2,
    });
    try {
      const ids = await Promise.all(
        ["a", "b"].map((tag) => queue.enqueue({ prompt: `calls=2 tag=${tag}`, sessionId: `s-${tag}` })),
      );
      for (const id of ids) {
        const info = await queue.wait(id);
        expect(info.status, worker.stderr).toBe("finished");
        expect(info.outcome?.stopReason).toBe("completed");
      }
      const applied = readEffects(logFile).filter((line) => line.event === "applied");
      expect(applied.map((line) => line.key).sort()).toEqual(["a-0", "a-1", "b-0", "b-1"]);
      const store = await PostgresSessionStore.open({
        connectionString: databaseUrl,
        schema: `${schema}_sessions`,
      });
      const events: RunEvent[] = [];
      for await (const stored of store.read("s-a")) events.push(stored.event);
      await store.close();
      expect(projectTranscript(events).at(-1)).toMatchObject({ role: "assistant" });
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
