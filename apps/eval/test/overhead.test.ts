// The overhead suite's measuring parts, with real processes and a real loopback server; never its speed.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AgentSpec,
  bridleAgent,
  claudeAgent,
  codexAgent,
  shebangFlags,
} from "../src/overhead/agents.js";
import { LoopbackModel, shellToolOf, toolOf } from "../src/overhead/loopback.js";
import { harnessTimes, measureSession, median } from "../src/overhead/measure.js";
import { cacheText, PrefixTracker, prefixShare } from "../src/overhead/prefix.js";
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

/** A tool call's arguments from Anthropic's (`input_json_delta`) or Responses' (`…arguments.delta`) stream. */
function streamedArguments(sse: string): string {
  return sse
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { type?: string; delta?: unknown })
    .map((event) => {
      const delta = event.delta as { type?: string; partial_json?: string } | string | undefined;
      if (event.type === "response.function_call_arguments.delta" && typeof delta === "string") return delta;
      return typeof delta === "object" && delta?.type === "input_json_delta"
        ? (delta.partial_json ?? "")
        : "";
    })
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
      expect(argumentsOf(await post({ tools: [bashTool("bash")] }))).toBe(
        JSON.stringify({ command: "echo turn 2" }),
      );
      const last = await post({ tools: [bashTool("bash")] });
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

  it("speaks Anthropic's Messages and OpenAI's Responses too, finding Claude Code's and Codex's tools", async () => {
    // The tools as those agents offer them: Claude Code's `Bash` and `Read` (an absolute `file_path`),
    // Codex's `exec_command` (its command in `cmd`), in each API's own shape.
    const claude = [
      { name: "Bash", input_schema: { type: "object", properties: { command: { type: "string" } } } },
      { name: "Read", input_schema: { type: "object", properties: { file_path: { type: "string" } } } },
    ];
    const codex = [
      { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: {} } } },
    ];
    expect(shellToolOf(claude)).toEqual({ name: "Bash", argument: "command", argv: false });
    expect(toolOf(claude, "read")).toEqual({ name: "Read", argument: "file_path", argv: false });
    expect(shellToolOf(codex)).toEqual({ name: "exec_command", argument: "cmd", argv: false });

    const origin = (model: LoopbackModel) => model.baseUrl.replace(/\/v1$/, "");
    const messages = await LoopbackModel.start({ toolTurns: 1, tool: "read", workspace: "/work/space" });
    try {
      const post = () =>
        fetch(`${origin(messages)}/v1/messages?beta=true`, {
          method: "POST",
          body: JSON.stringify({ stream: true, tools: claude }),
        }).then((response) => response.text());
      const first = await post();
      expect(first).toContain("event: content_block_start");
      expect(first).toContain('"name":"Read"');
      expect(streamedArguments(first)).toBe(JSON.stringify({ file_path: "/work/space/README.md" }));
      expect(await post()).toContain('"stop_reason":"end_turn"');
      await messages.finished;
      expect(messages.problems).toEqual([]);
    } finally {
      await messages.close();
    }

    const responses = await LoopbackModel.start({ toolTurns: 1 });
    try {
      const post = () =>
        fetch(`${responses.baseUrl}/responses`, {
          method: "POST",
          body: JSON.stringify({ stream: true, tools: codex }),
        }).then((response) => response.text());
      const first = await post();
      expect(first).toContain("response.output_item.added");
      expect(first).toContain('"name":"exec_command"');
      expect(streamedArguments(first)).toBe(JSON.stringify({ cmd: "echo turn 1" }));
      expect(await post()).toContain("response.completed");
      await responses.finished;
      expect(responses.problems).toEqual([]);
      expect(responses.timings).toHaveLength(2);
    } finally {
      await responses.close();
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

describe("Claude Code and Codex as peers", () => {
  it("are left out where not installed, and are told the loopback as their own API's base URL", async () => {
    const root = await mkdtemp(join(tmpdir(), "bridle-peers-"));
    try {
      const claude = claudeAgent(root);
      const codex = codexAgent(root);
      expect([claude.script, codex.script]).toEqual([undefined, undefined]);
      expect(codex.turns).toEqual(["shell"]);
      const place = { baseUrl: "http://127.0.0.1:9/v1", workspace: root, home: root, prompt: "go" };
      // Anthropic's SDK adds /v1/messages to the origin it is given.
      expect(claude.launch(place).env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:9");
      const launch = codex.launch(place);
      expect(launch.args.slice(0, 1)).toEqual(["exec"]);
      const config = await readFile(join(root, ".codex", "config.toml"), "utf8");
      expect(config).toContain('base_url = "http://127.0.0.1:9/v1"');
      expect(config).toContain('wire_api = "responses"');
      expect(launch.env.CODEX_HOME).toBe(join(root, ".codex"));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("prefix stability", () => {
  const system = { role: "system", content: "be brief" };
  const user = { role: "user", content: "go" };
  const call = { role: "assistant", tool_calls: [{ id: "c1", function: { name: "bash", arguments: "{}" } }] };
  const tools = [bashTool("bash")];

  it("reads tools, system and messages from Chat Completions, Responses and Anthropic bodies", () => {
    const chat = cacheText({ model: "m", tools, messages: [system, user] });
    expect(chat).toBe(`${JSON.stringify(tools)}\n""\n${JSON.stringify(system)}\n${JSON.stringify(user)}\n`);
    expect(cacheText({ tools, instructions: "be brief", input: [user] })).toBe(
      `${JSON.stringify(tools)}\n"be brief"\n${JSON.stringify(user)}\n`,
    );
    expect(cacheText({ system: "be brief", messages: [user], tools })).toBe(
      cacheText({ tools, instructions: "be brief", input: [user] }),
    );
  });

  it("counts the bytes each request shares with the next, and starts again after a summary request", async () => {
    const model = await LoopbackModel.start({ toolTurns: 5 });
    try {
      const post = (body: unknown) =>
        fetch(`${model.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) }).then((r) =>
          r.text(),
        );
      await post({ tools, messages: [system, user] });
      await post({ tools, messages: [system, user, call] });
      // A request that changes an earlier byte (a clock in the system prompt, say) keeps only what precedes it.
      await post({ tools, messages: [{ role: "system", content: "be brief 2" }, user, call] });
      const summary = await post({ messages: [user, call] });
      expect(summary).toContain("Summary:");
      await post({ tools, messages: [system, user] });
      await post({ tools, messages: [system, user, call] });
      const last = await post({ tools, messages: [system, user, call, user] });
      expect(last).toContain('"content":"done"');
      await model.finished;
      expect(model.summaries).toBe(1);
      // The summary request is not a turn: 5 tool turns and the final answer.
      expect(model.timings).toHaveLength(6);
      const pairs = model.prefix.pairs;
      expect(pairs.map((pair) => pair.afterCompaction)).toEqual([false, false, true, true]);
      expect(pairs[0]?.kept).toBe(pairs[0]?.bytes);
      const changed = JSON.stringify(tools).length + 4 + '{"role":"system","content":"be brief'.length;
      expect(pairs[1]?.kept).toBe(changed);
      expect(prefixShare(pairs.filter((pair) => pair.afterCompaction))).toBe(1);
      expect(prefixShare(pairs.filter((pair) => !pair.afterCompaction))).toBeLessThan(1);
      expect(Number.isNaN(prefixShare([]))).toBe(true);
    } finally {
      await model.close();
    }
  });

  it("holds only the previous request's text", () => {
    const tracker = new PrefixTracker();
    tracker.add({ tools, messages: [user] });
    tracker.add({ tools, messages: [user, call] });
    expect(tracker.pairs).toEqual([
      {
        bytes: cacheText({ tools, messages: [user] }).length,
        kept: cacheText({ tools, messages: [user] }).length,
        afterCompaction: false,
      },
    ]);
    expect(tracker.compactions).toBe(false);
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

  // What a prompt cache can serve: every request of a run is a byte-identical prefix of the next (no
  // clock, counter or reordered tool in what was sent before), and again after a compaction.
  it.skipIf(!existsSync(script))(
    "sends every request of a 20-turn run as a byte-identical prefix of the next, compacted or not",
    async () => {
      const plain = await measureSession(bridleAgent(script), { toolTurns: 20 });
      expect(plain.problems).toEqual([]);
      expect(plain.compactions).toBe(0);
      expect(plain.prefixShare).toBe(1);
      const compacted = await measureSession(bridleAgent(script), {
        toolTurns: 20,
        command: "seq 1 600",
        contextWindow: 16_000,
      });
      expect(compacted.problems).toEqual([]);
      expect(compacted.compactions).toBeGreaterThan(0);
      expect(compacted.prefixShare).toBe(1);
      expect(compacted.prefixShareAfterCompaction).toBe(1);
    },
  );
});
