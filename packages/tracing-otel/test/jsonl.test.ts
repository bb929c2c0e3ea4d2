import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ATTR, createTracing, formatTraceTree, JsonlSpanExporter, readTraceFile } from "../src/index.js";
import { echo, failing } from "./fixtures.js";

describe("local JSONL traces", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-trace-"));
  });
  afterEach(async () => {
    await cleanup();
  });

  it("writes one line per span to a file in a folder it creates, readable back as a tree", async () => {
    const file = join(dir, "traces", "nested", "run.jsonl");
    const tracing = createTracing({ file, serviceName: "my-agent" });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "a" }, id: "ok" },
          { name: "explode", arguments: {}, id: "bad" },
        ],
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 4 },
      },
      { text: "done" },
    ]);
    const result = await new Harness({ model, tools: [echo, failing] }).run({
      prompt: "go",
      sink: tracing.tracer,
    });
    await tracing.shutdown();

    const records = await readTraceFile(file);
    expect(records).toHaveLength(5);
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(5);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const agent = records.find((record) => record.name === "invoke_agent");
    expect(agent?.parentSpanId).toBeUndefined();
    expect(agent?.attributes[ATTR.runId]).toBe(result.runId);
    expect(agent?.resource["service.name"]).toBe("my-agent");
    expect(agent?.scope.name).toBe("@bridle/tracing-otel");
    expect(agent?.kind).toBe("internal");
    for (const record of records) {
      expect(record.traceId).toBe(agent?.traceId);
      if (record !== agent) expect(record.parentSpanId).toBe(agent?.spanId);
      expect(Number.isNaN(Date.parse(record.start))).toBe(false);
      expect(record.durationMs).toBeGreaterThanOrEqual(0);
      expect(BigInt(record.startUnixNano)).toBeGreaterThan(0n);
    }
    const bad = records.find((record) => record.attributes[ATTR.toolCallId] === "bad");
    expect(bad?.status).toEqual({ code: "error", message: "ToolError" });
    expect(bad?.attributes[ATTR.errorType]).toBe("ToolError");
    const firstChat = records.find(
      (record) => record.kind === "client" && record.attributes[ATTR.request] === 1,
    );
    expect(firstChat?.attributes[ATTR.cacheReadTokens]).toBe(4);
    expect(firstChat?.attributes[ATTR.finishReasons]).toEqual(["tool_call"]);

    const tree = formatTraceTree(records).split("\n");
    expect(tree).toHaveLength(5);
    expect(tree[0]).toMatch(/^invoke_agent {2}\d+\.\dms {2}tokens in 10 \(cached 4\) out 5$/);
    expect(tree[1]).toMatch(
      /^├─ chat scripted-model {2}\d+\.\dms {2}tokens in 10 \(cached 4\) out 5 {2}finish tool_call$/,
    );
    expect(tree.filter((row) => row.includes("execute_tool explode"))[0]).toMatch(/ERROR ToolError$/);
    expect(tree[4]).toMatch(/^└─ chat scripted-model .* finish stop$/);
  });

  it("appends across runs and skips a line cut short by a crash", async () => {
    const file = join(dir, "run.jsonl");
    const tracing = createTracing({ file, batch: false });
    const harness = new Harness({ model: new ScriptedModel((ctx) => ({ text: `answer ${ctx.index}` })) });
    await harness.run({ prompt: "one", sink: tracing.tracer });
    await tracing.forceFlush();
    await appendFile(file, '{"traceId":"abc","spanId":"de', "utf8");
    await appendFile(file, "\n", "utf8");
    await harness.run({ prompt: "two", sink: tracing.tracer });
    await tracing.shutdown();
    const records = await readTraceFile(file);
    expect(records.filter((record) => record.name === "invoke_agent")).toHaveLength(2);
    expect(new Set(records.map((record) => record.traceId)).size).toBe(2);
  });

  it("reports a failed write to the SDK instead of throwing", async () => {
    const blocker = join(dir, "not-a-folder");
    await writeFile(blocker, "x");
    const exporter = new JsonlSpanExporter(join(blocker, "trace.jsonl"));
    const tracing = createTracing({ exporters: [exporter], batch: false });
    const result = await new Harness({ model: new ScriptedModel([{ text: "hi" }]) }).run({
      prompt: "go",
      sink: tracing.tracer,
    });
    expect(result.stopReason).toBe("completed");
    const outcome = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export([], resolve),
    );
    expect(outcome.code).toBe(1);
    expect(outcome.error?.message).toContain("could not append spans");
    await tracing.shutdown();
  });
});
