import {
  type AnyHook,
  BridleError,
  defineHook,
  defineTool,
  Harness,
  type HarnessOptions,
  type RunEndInput,
} from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { eventTypes, expectWellFormed, noopTool, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

function echoTool(log: string[]) {
  return defineTool({
    name: "echo",
    description: "echoes",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      log.push(`ran:${text}`);
      return { content: `echo ${text}`, details: { text } };
    },
  });
}

function harness(options: Omit<HarnessOptions, "workspace">) {
  return new Harness({ workspace: dir, ...options });
}

describe("user_prompt_submit", () => {
  it("adds context the model sees right after the prompt", async () => {
    const model = new ScriptedModel([{ text: "ok" }]);
    const hooks: AnyHook[] = [
      defineHook({ event: "user_prompt_submit", handler: (ctx) => ctx.addContext("today is Tuesday") }),
    ];
    const result = await harness({ model, hooks }).run({ prompt: "what day is it?" });
    const sent = model.requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(["user", "user"]);
    expect(JSON.stringify(sent[1])).toContain("today is Tuesday");
    expect(result.messages).toHaveLength(3);
  });

  it("cancels the run before any model request", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const later: string[] = [];
    const hooks: AnyHook[] = [
      defineHook({ event: "user_prompt_submit", handler: (ctx) => ctx.cancel("prompt mentions secrets") }),
      defineHook({ event: "user_prompt_submit", handler: () => void later.push("second hook") }),
    ];
    const stream = harness({ model, hooks }).stream({ prompt: "print the api key" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("hook_cancelled");
    expect(result.error?.message).toMatch(/prompt mentions secrets/);
    expect(model.calls).toBe(0);
    expect(later).toEqual([]);
    expect(eventTypes(events)).toEqual(["run_started", "run_failed"]);
  });
});

describe("before_tool_call", () => {
  it("cancels a call: the tool never runs and the model sees Denied", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "rm -rf" } },
          { name: "echo", arguments: { text: "ls" } },
        ],
      },
      { text: "ok" },
    ]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "before_tool_call",
        tools: ["echo"],
        handler: (ctx) => {
          if ((ctx.args as { text: string }).text.startsWith("rm")) ctx.cancel("destructive command");
        },
      }),
    ];
    const result = await harness({ model, hooks, tools: [echoTool(log)] }).run({ prompt: "go" });
    expect(log).toEqual(["ran:ls"]);
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map(resultText)).toEqual(["Denied: the call was blocked: destructive command", "echo ls"]);
    expect(result.usage.toolCalls).toBe(2);
    expect(result.usage.cancelledToolCalls).toBe(1);
    expectWellFormed(result.messages);
  });

  it("only runs for the tools it names, in registration order, awaiting async handlers", async () => {
    const order: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "noop" }, { name: "echo", arguments: { text: "x" } }] },
      { text: "ok" },
    ]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "before_tool_call",
        tools: ["echo"],
        handler: async (ctx) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push(`first:${ctx.toolCall.name}`);
        },
      }),
      defineHook({
        event: "before_tool_call",
        handler: (ctx) => void order.push(`second:${ctx.toolCall.name}`),
      }),
    ];
    const tools = [noopTool, { ...echoTool([]), sequential: true }];
    await harness({ model, hooks, tools }).run({ prompt: "go" });
    expect(order).toEqual(["second:noop", "first:echo", "second:echo"]);
  });
});

describe("after_tool_call", () => {
  it("rewrites what the model sees, keeps details, and retry accounting uses the original", async () => {
    const seen: { result: string; retryable: boolean }[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "token=abc" } }] },
      { toolCalls: [{ name: "echo", arguments: '{"text": 1}' }] },
      { text: "ok" },
    ]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "after_tool_call",
        handler: (ctx) => {
          seen.push({ result: resultText(ctx.result), retryable: ctx.retryable });
          // Make every result look like a success: accounting must not be fooled.
          ctx.rewrite(resultText(ctx.result).replace(/token=\w+/, "token=[redacted]"));
        },
      }),
      defineHook({
        event: "after_tool_call",
        handler: (ctx) => {
          seen.push({ result: resultText(ctx.result), retryable: ctx.retryable });
          ctx.rewrite([{ type: "text", text: `${resultText(ctx.result)} (checked)` }]);
        },
      }),
    ];
    const result = await harness({ model, hooks, tools: [echoTool([])] }).run({ prompt: "go" });
    const results = result.messages.filter((m) => m.role === "tool");
    expect(resultText(results[0])).toBe("echo token=[redacted] (checked)");
    expect(results[0]?.role === "tool" && results[0].details).toEqual({ text: "token=abc" });
    // The invalid call never ran, so no tool hook fired for it; it still counts as a retry.
    expect(resultText(results[1])).toMatch(/^InvalidInput/);
    expect(seen).toEqual([
      { result: "echo token=abc", retryable: false },
      { result: "echo token=[redacted]", retryable: false },
    ]);
    expect(result.usage.toolRetries).toEqual({ echo: 1 });
  });

  it("sees a ModelRetry as retryable even when it rewrites the text", async () => {
    const { ModelRetry } = await import("@bridle/core");
    const picky = defineTool({
      name: "picky",
      description: "wants a hint followed",
      inputSchema: z.object({}),
      retryBudget: 0,
      execute: async () => {
        throw new ModelRetry("use a branch that exists");
      },
    });
    const flags: boolean[] = [];
    const model = new ScriptedModel([{ toolCalls: [{ name: "picky" }] }, { text: "unused" }]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "after_tool_call",
        handler: (ctx) => {
          flags.push(ctx.retryable);
          ctx.rewrite("all good");
        },
      }),
    ];
    const result = await harness({ model, hooks, tools: [picky] }).run({ prompt: "go" });
    expect(flags).toEqual([true]);
    expect(result.stopReason).toBe("tool_retries_exceeded");
    expectWellFormed(result.messages);
  });
});

describe("subagent hooks", () => {
  it("reach a tool through ToolCallEnv.hooks, filtered by agent name, and can cancel", async () => {
    const fired: string[] = [];
    const spawn = defineTool({
      name: "spawn",
      description: "starts a subagent",
      inputSchema: z.object({ agent: z.string() }),
      execute: async ({ agent }, ctx) => {
        const verdict = await ctx.hooks?.beforeSubagentRun({
          subagent: agent,
          prompt: "look around",
          toolCallId: ctx.toolCallId,
        });
        if (!verdict || verdict.cancelled)
          return { content: `not started: ${verdict?.reason}`, isError: true };
        await ctx.hooks?.afterSubagentRun({
          subagent: agent,
          toolCallId: ctx.toolCallId,
          stopReason: "completed",
          finalText: "found it",
        });
        return { content: "child said: found it" };
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "spawn", arguments: { agent: "explorer" } },
          { name: "spawn", arguments: { agent: "writer" } },
        ],
      },
      { text: "ok" },
    ]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "before_subagent_run",
        agents: ["writer"],
        handler: (ctx) => ctx.cancel("writers are not allowed here"),
      }),
      defineHook({
        event: "after_subagent_run",
        handler: (ctx) => void fired.push(`${ctx.subagent}:${ctx.stopReason}:${ctx.finalText}`),
      }),
    ];
    const result = await harness({ model, hooks, tools: [spawn] }).run({ prompt: "go" });
    const results = result.messages.filter((m) => m.role === "tool").map(resultText);
    expect(results).toEqual(["child said: found it", "not started: writers are not allowed here"]);
    expect(fired).toEqual(["explorer:completed:found it"]);
  });
});

describe("hook failures", () => {
  const throwing = defineHook({
    event: "before_tool_call",
    name: "audit",
    handler: () => {
      throw new Error("audit log unavailable");
    },
  });

  it("are reported as hook_failed events and the run goes on", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "ok" },
    ]);
    const stream = harness({ model, hooks: [throwing], tools: [echoTool(log)] }).stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(log).toEqual(["ran:a"]);
    const failed = events.find((e) => e.type === "hook_failed");
    expect(failed).toMatchObject({
      hook: "before_tool_call",
      hookName: "audit",
      message: "audit log unavailable",
    });
  });

  it("fail the run in strict mode, with every call answered and the tool not run", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "ok" },
    ]);
    const result = await harness({ model, hooks: [throwing], strictHooks: true, tools: [echoTool(log)] }).run(
      {
        prompt: "go",
      },
    );
    expect(result.stopReason).toBe("hook_failed");
    expect(result.error?.message).toMatch(/before_tool_call hook \(audit\) threw: audit log unavailable/);
    expect(log).toEqual([]);
    expect(model.calls).toBe(1);
    expectWellFormed(result.messages);
  });

  it("in after_tool_call or a subagent hook, strict, end the run once the batch is answered", async () => {
    const spawn = defineTool({
      name: "spawn",
      description: "starts a subagent",
      inputSchema: z.object({}),
      execute: async (_args, ctx) => {
        const verdict = await ctx.hooks?.beforeSubagentRun({ subagent: "child", prompt: "p" });
        return { content: verdict?.cancelled ? `not started: ${verdict.reason}` : "started" };
      },
    });
    const failing = (event: "after_tool_call" | "before_subagent_run") =>
      ({
        event,
        handler: () => {
          throw new Error(`${event} broke`);
        },
      }) as AnyHook;
    for (const event of ["after_tool_call", "before_subagent_run"] as const) {
      const model = new ScriptedModel([{ toolCalls: [{ name: "spawn" }] }, { text: "never" }]);
      const result = await harness({ model, hooks: [failing(event)], strictHooks: true, tools: [spawn] }).run(
        {
          prompt: "go",
        },
      );
      expect(result.stopReason).toBe("hook_failed");
      expect(result.error?.message).toContain(`${event} broke`);
      expect(model.calls).toBe(1);
      expectWellFormed(result.messages);
      if (event === "before_subagent_run") {
        expect(resultText(result.messages[2])).toMatch(/not started: a before_subagent_run hook failed/);
      }
    }
  });

  it("in a run_start hook, strict, end the run before the model is called", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "run_start",
        handler: () => {
          throw new Error("boom");
        },
      }),
    ];
    const stream = harness({ model, hooks, strictHooks: true }).stream({ prompt: "go" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("hook_failed");
    expect(eventTypes(events)).toEqual(["run_started", "hook_failed", "run_failed"]);
    expect(model.calls).toBe(0);
  });

  it("rejects an unknown hook event as invalid configuration", () => {
    const model = new ScriptedModel([]);
    const bogus = { event: "before_everything", handler: () => {} } as unknown as AnyHook;
    expect(() => harness({ model, hooks: [bogus] })).toThrow(BridleError);
  });
});

describe("run_start, limit_reached and run_end", () => {
  function recorder() {
    const ends: RunEndInput[] = [];
    const calls: string[] = [];
    const hooks: AnyHook[] = [
      defineHook({ event: "run_start", handler: (ctx) => void calls.push(`start:${ctx.prompt.length}`) }),
      defineHook({ event: "limit_reached", handler: (ctx) => void calls.push(`limit:${ctx.limit}`) }),
      defineHook({
        event: "run_end",
        handler: (ctx) => {
          ends.push(ctx);
          calls.push(`end:${ctx.stopReason}`);
        },
      }),
    ];
    return { ends, calls, hooks };
  }

  it("fire once each on success, before the terminal event", async () => {
    const { ends, calls, hooks } = recorder();
    const model = new ScriptedModel([{ text: "hi" }]);
    const stream = harness({ model, hooks }).stream({ prompt: "go" });
    let sawTerminalBeforeEnd = false;
    for await (const event of stream) {
      if (event.type === "run_completed") sawTerminalBeforeEnd = ends.length === 0;
    }
    expect(calls).toEqual(["start:1", "end:completed"]);
    expect(ends[0]?.finalText).toBe("hi");
    expect(sawTerminalBeforeEnd).toBe(false);
  });

  it("run_end fires once when a tool throws an infrastructure error", async () => {
    const { calls, hooks } = recorder();
    const infra = defineTool({
      name: "infra",
      description: "breaks",
      inputSchema: z.object({}),
      execute: async () => {
        throw new BridleError("tool_infrastructure", "sandbox died");
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "infra" }] }]);
    const result = await harness({ model, hooks, tools: [infra] }).run({ prompt: "go" });
    expect(result.stopReason).toBe("tool_error");
    expect(calls).toEqual(["start:1", "end:tool_error"]);
  });

  it("run_end fires once when the model adapter throws", async () => {
    const { calls, hooks } = recorder();
    const model = {
      provider: "bad",
      model: "bad",
      // biome-ignore lint/correctness/useYield: an adapter that throws before yielding
      async *stream() {
        throw new Error("socket hang up");
      },
    };
    const result = await harness({ model, hooks }).run({ prompt: "go" });
    expect(result.stopReason).toBe("provider_error");
    expect(calls).toEqual(["start:1", "end:provider_error"]);
  });

  it("run_end fires once when the run is aborted mid-tool", async () => {
    const { calls, hooks } = recorder();
    const controller = new AbortController();
    const stuck = defineTool({
      name: "stuck",
      description: "waits for abort",
      inputSchema: z.object({}),
      execute: (_args, ctx) =>
        new Promise<{ content: string }>((_resolve, reject) => {
          controller.abort();
          ctx.signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "stuck" }] }, { text: "never" }]);
    const result = await harness({ model, hooks, tools: [stuck] }).run({
      prompt: "go",
      signal: controller.signal,
    });
    expect(result.stopReason).toBe("aborted");
    expect(calls).toEqual(["start:1", "end:aborted"]);
    expectWellFormed(result.messages);
  });

  it("run_end fires once when the consumer stops reading (the run is aborted)", async () => {
    const { calls, hooks } = recorder();
    const model = new ScriptedModel([{ text: "slow", delayMs: 5_000 }]);
    const stream = harness({ model, hooks }).stream({ prompt: "go" });
    for await (const event of stream) {
      if (event.type === "model_request") break;
    }
    const result = await stream.result;
    expect(result.stopReason).toBe("aborted");
    expect(calls).toEqual(["start:1", "end:aborted"]);
  });

  it("limit_reached then run_end fire once at a limit", async () => {
    const { calls, hooks } = recorder();
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: "noop" }] }));
    const result = await harness({ model, hooks, tools: [noopTool], limits: { maxModelRequests: 3 } }).run({
      prompt: "go",
    });
    expect(result.stopReason).toBe("max_model_requests");
    expect(calls).toEqual(["start:1", "limit:max_model_requests", "end:max_model_requests"]);
    expectWellFormed(result.messages);
  });

  it("run_end fires once when a user_prompt_submit hook cancels", async () => {
    const { calls, hooks } = recorder();
    const all: AnyHook[] = [
      ...hooks,
      defineHook({ event: "user_prompt_submit", handler: (ctx) => ctx.cancel("no") }),
    ];
    const result = await harness({ model: new ScriptedModel([]), hooks: all }).run({ prompt: "go" });
    expect(result.stopReason).toBe("hook_cancelled");
    expect(calls).toEqual(["start:1", "end:hook_cancelled"]);
  });

  it("a throwing run_end hook is reported once and, in strict mode, fails a completed run", async () => {
    let count = 0;
    const hooks: AnyHook[] = [
      defineHook({
        event: "run_end",
        handler: () => {
          count++;
          throw new Error("metrics down");
        },
      }),
    ];
    const lenient = await harness({ model: new ScriptedModel([{ text: "hi" }]), hooks }).run({
      prompt: "go",
    });
    expect(lenient.stopReason).toBe("completed");
    const stream = harness({ model: new ScriptedModel([{ text: "hi" }]), hooks, strictHooks: true }).stream({
      prompt: "go",
    });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("hook_failed");
    expect(count).toBe(2);
    expect(events.filter((e) => e.type === "run_completed" || e.type === "run_failed")).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("run_failed");
  });
});

describe("record", () => {
  it("puts facts on the stream: run_start's after run_started, a tool hook's after its call", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "done" },
    ]);
    const hooks: AnyHook[] = [
      defineHook({ event: "run_start", handler: (ctx) => ctx.record?.("test.baseline", { head: "abc" }) }),
      defineHook({
        event: "after_tool_call",
        handler: (ctx) => ctx.record?.("test.after", { tool: ctx.toolCall.name }),
      }),
    ];
    const stream = harness({ model, hooks, tools: [echoTool([])] }).stream({ prompt: "go" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    const types = eventTypes(events);
    expect(types[0]).toBe("run_started");
    expect(types[1]).toBe("fact");
    const facts = events.flatMap((e) => (e.type === "fact" ? [{ kind: e.kind, data: e.data }] : []));
    expect(facts).toEqual([
      { kind: "test.baseline", data: { head: "abc" } },
      { kind: "test.after", data: { tool: "echo" } },
    ]);
    const after = types.indexOf("fact", 2);
    expect(types.lastIndexOf("tool_call_requested")).toBeLessThan(after);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });
});
