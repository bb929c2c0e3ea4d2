// The overhead suite's measuring parts, with real processes and a real loopback server; never its speed.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentSpec, bridleAgent, shebangFlags } from "../src/overhead/agents.js";
import { LoopbackModel, shellToolOf, toolOf } from "../src/overhead/loopback.js";
import { harnessTimes, measureSession, median } from "../src/overhead/measure.js";
import { defaultBridleScript, formatOverhead, summarizeOverhead } from "../src/overhead/suite.js";

const bashTool = (name: string, type = "string") => ({
  type: "function",
  function: { name, parameters: { type: "object", properties: { command: { type } } } },
});

/** A streamed tool call's arguments, put back together from the SSE chunks. */
function argumentsOf(sse: string): string {
  return sse
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map(
      (line) =>
        JSON.parse(line.slice(6)) as {
          choices: { delta: { tool_calls?: { function: { arguments?: string } }[] } }[];
        },
    )
    .map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function.arguments ?? "")
    .join("");
}

describe("the loopback model", () => {
  it("finds the shell tool an agent offers, by name and argument", () => {
    expect(shellToolOf([bashTool("read"), bashTool("bash")])).toEqual({
      name: "bash",
      argument: "command",
      argv: false,
    });
    expect(shellToolOf([bashTool("shell", "array")])).toMatchObject({ name: "shell", argv: true });
    expect(shellToolOf([bashTool("read_file")])).toBeUndefined();
    const read = { type: "function", function: { name: "read", parameters: { properties: { path: {} } } } };
    expect(toolOf([bashTool("bash"), read], "read")).toEqual({ name: "read", argument: "path", argv: false });
    expect(shellToolOf("not a list")).toBeUndefined();
  });

  it("scripts tool turns then a final answer, and timestamps each request and response", async () => {
    const model = await LoopbackModel.start({ toolTurns: 2 });
    try {
      const post = (body: unknown) =>
        fetch(`${model.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) }).then((r) =>
          r.text(),
        );
      const first = await post({ tools: [bashTool("bash")] });
      expect(first).toContain('"name":"bash"');
      expect(argumentsOf(first)).toBe(JSON.stringify({ command: "echo turn 1" }));
      expect(argumentsOf(await post({}))).toBe(JSON.stringify({ command: "echo turn 2" }));
      const last = await post({});
      expect(last).toContain('"content":"done"');
      expect(last).not.toContain("tool_calls");
      await model.finished;
      expect(model.timings).toHaveLength(3);
      for (const timing of model.timings) expect(timing.respondedAt).toBeGreaterThanOrEqual(timing.requestAt);
      expect(model.timings[0]?.requestBytes).toBe(JSON.stringify({ tools: [bashTool("bash")] }).length);
    } finally {
      await model.close();
    }
  });

  it("answers at once, with a problem noted, when the agent offers no shell tool", async () => {
    const model = await LoopbackModel.start({ toolTurns: 5 });
    try {
      await fetch(`${model.baseUrl}/chat/completions`, { method: "POST", body: "{}" });
      await model.finished;
      expect(model.problems).toEqual(["the agent offered no shell tool"]);
    } finally {
      await model.close();
    }
  });
});

describe("figures", () => {
  it("takes the harness time as each request's arrival minus the previous response's end", () => {
    const timings = [
      { requestAt: 0, respondedAt: 10, requestBytes: 1 },
      { requestAt: 13, respondedAt: 20, requestBytes: 1 },
      { requestAt: 21, respondedAt: 30, requestBytes: 1 },
    ];
    expect(harnessTimes(timings)).toEqual([3, 1]);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(Number.isNaN(median([]))).toBe(true);
  });

  it("reports an agent that never calls the model as a problem, not as figures", async () => {
    const dir = await mkdtemp(join(tmpdir(), "overhead-silent-"));
    try {
      const script = join(dir, "silent.mjs");
      await writeFile(script, "process.stderr.write('no model for me\\n'); process.exit(3);\n");
      const silent: AgentSpec = {
        name: "silent",
        script,
        version: "0",
        launch: () => ({ args: [script], env: {} }),
      };
      const figures = await measureSession(silent, { toolTurns: 3 });
      expect(figures.exitCode).toBe(3);
      expect(figures.problems.join("\n")).toMatch(
        /expected 4 model requests, got 0; exit 3; no model for me/,
      );
      const [row] = summarizeOverhead([figures]);
      expect(row?.sessions).toBe(0);
      expect(formatOverhead(summarizeOverhead([figures]), 3)).toMatch(/\| silent \| 0 \| 0 \| NaN \|/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Bridle's CLI on the loopback model", () => {
  const script = defaultBridleScript();
  it.skipIf(!existsSync(script))(
    "takes every scripted shell turn, records its session and exits 0",
    async () => {
      expect(shebangFlags(script).every((flag) => flag.startsWith("--"))).toBe(true);
      const figures = await measureSession(bridleAgent(script), { toolTurns: 6 });
      const reads = await measureSession(bridleAgent(script), { toolTurns: 3, tool: "read" });
      expect(reads.problems).toEqual([]);
      expect(reads.turnMs).toHaveLength(3);
      expect(figures.problems).toEqual([]);
      expect(figures.exitCode).toBe(0);
      expect(figures.turnMs).toHaveLength(6);
      expect(figures.coldStartMs).toBeGreaterThan(0);
      expect(figures.firstRequestBytes).toBeGreaterThan(1000);
      // Every turn adds the call and its result to the transcript the next request carries.
      expect(figures.lastRequestBytes).toBeGreaterThan(figures.firstRequestBytes);
      expect(figures.peakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
      expect(Number.isFinite(figures.cpuPerTurnMs)).toBe(true);
    },
  );
});
