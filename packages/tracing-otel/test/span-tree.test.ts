import { askApprover, defineTool, Harness, type Model, type RunStream } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ATTR, EVENT, formatTraceTree, toTraceRecord } from "../src/index.js";
import { byName, deploy, echo, idOf, mcpRead, memoryTracing, one, parentOf } from "./fixtures.js";

describe("span tree from a run's events", () => {
  it("nests chat and execute_tool spans under invoke_agent, with GenAI attributes", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel(
      [
        {
          text: "let me look",
          toolCalls: [
            { name: "echo", arguments: { text: "hi" }, id: "call_echo" },
            { name: "mcp_files_read", arguments: { path: "README.md" }, id: "call_mcp" },
          ],
          usage: {
            inputTokens: 1200,
            outputTokens: 40,
            cacheReadTokens: 1000,
            cacheWriteTokens: 150,
            reasoningTokens: 12,
          },
        },
        { text: "all done", usage: { inputTokens: 1300, outputTokens: 9, cacheReadTokens: 1150 } },
      ],
      { provider: "anthropic", model: "claude-test" },
    );
    const harness = new Harness({ model, tools: [echo, mcpRead], agentName: "coder" });
    const result = await harness.run({ prompt: "read the readme", sink: tracer, sessionId: "session-1" });
    expect(result.stopReason).toBe("completed");

    const all = spans();
    expect(all).toHaveLength(5);
    expect(tracer.openSpans).toBe(0);
    const agent = one(all, "invoke_agent coder");
    expect(parentOf(agent)).toBeUndefined();
    expect(agent.kind).toBe(SpanKind.INTERNAL);
    expect(agent.status.code).toBe(SpanStatusCode.UNSET);
    expect(agent.attributes).toMatchObject({
      [ATTR.operationName]: "invoke_agent",
      [ATTR.agentName]: "coder",
      [ATTR.providerName]: "anthropic",
      [ATTR.requestModel]: "claude-test",
      [ATTR.conversationId]: "session-1",
      [ATTR.runId]: result.runId,
      [ATTR.stopReason]: "completed",
      [ATTR.inputTokens]: 2500,
      [ATTR.outputTokens]: 49,
      [ATTR.cacheReadTokens]: 2150,
      [ATTR.cacheCreationTokens]: 150,
      [ATTR.modelRequests]: 2,
      [ATTR.toolCalls]: 2,
    });

    const chats = byName(all, "chat claude-test");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(parentOf(chat)).toBe(idOf(agent));
      expect(chat.spanContext().traceId).toBe(agent.spanContext().traceId);
      expect(chat.kind).toBe(SpanKind.CLIENT);
    }
    const [first, second] = chats.sort(
      (a, b) => Number(a.attributes[ATTR.request]) - Number(b.attributes[ATTR.request]),
    );
    expect(first?.attributes).toMatchObject({
      [ATTR.operationName]: "chat",
      [ATTR.providerName]: "anthropic",
      [ATTR.requestModel]: "claude-test",
      [ATTR.responseModel]: "claude-test",
      [ATTR.finishReasons]: ["tool_call"],
      [ATTR.inputTokens]: 1200,
      [ATTR.outputTokens]: 40,
      [ATTR.cacheReadTokens]: 1000,
      [ATTR.cacheCreationTokens]: 150,
      [ATTR.reasoningTokens]: 12,
      [ATTR.conversationId]: "session-1",
    });
    expect(typeof first?.attributes[ATTR.timeToFirstChunk]).toBe("number");
    expect(second?.attributes).toMatchObject({ [ATTR.finishReasons]: ["stop"], [ATTR.inputTokens]: 1300 });

    const tool = one(all, "execute_tool echo");
    expect(parentOf(tool)).toBe(idOf(agent));
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);
    expect(tool.attributes).toMatchObject({
      [ATTR.operationName]: "execute_tool",
      [ATTR.toolName]: "echo",
      [ATTR.toolCallId]: "call_echo",
      [ATTR.toolType]: "function",
    });
    expect(tool.attributes[ATTR.mcpMethodName]).toBeUndefined();

    const mcp = one(all, "execute_tool mcp_files_read");
    expect(parentOf(mcp)).toBe(idOf(agent));
    expect(mcp.attributes).toMatchObject({
      [ATTR.toolName]: "mcp_files_read",
      [ATTR.toolCallId]: "call_mcp",
      [ATTR.toolType]: "extension",
      [ATTR.mcpMethodName]: "tools/call",
      [ATTR.mcpServer]: "files",
      [ATTR.mcpTool]: "read",
    });

    // Children lie within their run's span.
    const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6;
    for (const child of [...chats, tool, mcp]) {
      expect(ms(child.startTime)).toBeGreaterThanOrEqual(ms(agent.startTime));
      expect(ms(child.endTime)).toBeLessThanOrEqual(ms(agent.endTime));
    }
    // Content is not captured by default.
    for (const span of all) {
      for (const key of [
        ATTR.inputMessages,
        ATTR.outputMessages,
        ATTR.toolCallArguments,
        ATTR.toolCallResult,
      ]) {
        expect(span.attributes[key]).toBeUndefined();
      }
    }
  });

  it("nests a subagent's run under the execute_tool span of the call that started it", async () => {
    const { tracer, spans } = memoryTracing();
    const childModel = new ScriptedModel(
      [{ toolCalls: [{ name: "echo", arguments: { text: "from child" } }] }, { text: "child answer" }],
      { provider: "openai-chat", model: "scripted-model" },
    );
    const child = new Harness({ model: childModel, tools: [echo], agentName: "researcher" });
    const delegate = defineTool({
      name: "delegate",
      description: "Hand a task to the researcher",
      inputSchema: z.object({ task: z.string() }),
      execute: async ({ task }, ctx) => {
        const run = await child.run({
          prompt: task,
          parentRunId: ctx.runId,
          parentToolCallId: ctx.toolCallId,
          signal: ctx.signal,
          sink: tracer,
        });
        return { content: run.finalText };
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delegate", arguments: { task: "find it" }, id: "call_delegate" }] },
      { text: "parent done" },
    ]);
    const parent = new Harness({ model, tools: [delegate], agentName: "lead" });
    const result = await parent.run({ prompt: "go", sink: tracer });
    expect(result.stopReason).toBe("completed");
    expect(tracer.openSpans).toBe(0);

    const all = spans();
    const lead = one(all, "invoke_agent lead");
    const delegateSpan = one(all, "execute_tool delegate");
    const researcher = one(all, "invoke_agent researcher");
    expect(parentOf(delegateSpan)).toBe(idOf(lead));
    expect(parentOf(researcher)).toBe(idOf(delegateSpan));
    expect(researcher.attributes[ATTR.parentRunId]).toBe(result.runId);
    expect(researcher.attributes[ATTR.providerName]).toBe("openai");
    const childTool = one(all, "execute_tool echo");
    expect(parentOf(childTool)).toBe(idOf(researcher));
    const traceIds = new Set(all.map((span) => span.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    expect(byName(all, "chat scripted-model")).toHaveLength(4);

    const tree = formatTraceTree(all.map(toTraceRecord)).split("\n");
    expect(tree.map((row) => row.replace(/ {2}\d.*$/, ""))).toEqual([
      "invoke_agent lead",
      "├─ chat scripted-model",
      "├─ execute_tool delegate",
      "│  └─ invoke_agent researcher",
      "│     ├─ chat scripted-model",
      "│     ├─ execute_tool echo",
      "│     └─ chat scripted-model",
      "└─ chat scripted-model",
    ]);
  });

  it("keeps concurrent runs on one tracer apart, each in its own trace", async () => {
    const { tracer, spans } = memoryTracing();
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, i) => {
        const model = new ScriptedModel([
          { toolCalls: [{ name: "echo", arguments: { text: `run ${i}` } }], delayMs: 5 * (5 - i) },
          { text: `done ${i}`, delayMs: 3 * i },
        ]);
        return new Harness({ model, tools: [echo], agentName: `agent-${i}` }).run({
          prompt: "go",
          sink: tracer,
        });
      }),
    );
    expect(tracer.openSpans).toBe(0);
    const all = spans();
    expect(all).toHaveLength(20);
    for (const [i, result] of runs.entries()) {
      const agent = one(all, `invoke_agent agent-${i}`);
      expect(agent.attributes[ATTR.runId]).toBe(result.runId);
      const trace = all.filter((span) => span.spanContext().traceId === agent.spanContext().traceId);
      expect(trace).toHaveLength(4);
      for (const span of trace) if (span !== agent) expect(parentOf(span)).toBe(idOf(agent));
    }
  });

  it("records a model warning as an event on the run span, once per distinct warning", async () => {
    const { tracer, spans } = memoryTracing();
    const scripted = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: "done" },
    ]);
    // An adapter that cannot honour the temperature says so before every request's stream.
    const model: Model = {
      provider: scripted.provider,
      model: scripted.model,
      async *stream(request) {
        yield {
          type: "warning",
          warning: { code: "unsupported_setting", message: "temperature is not supported by this model" },
        };
        yield* scripted.stream(request);
      },
    };
    const result = await new Harness({ model, tools: [echo] }).run({ prompt: "x", sink: tracer });
    expect(result.stopReason).toBe("completed");
    const agent = one(spans(), "invoke_agent");
    const warnings = agent.events.filter((event) => event.name === EVENT.modelWarning);
    expect(warnings.map((event) => event.attributes)).toEqual([
      {
        "bridle.model_warning.code": "unsupported_setting",
        "bridle.model_warning.message": "temperature is not supported by this model",
      },
    ]);
    // On the run's span only: the chat spans carry none.
    const chats = byName(spans(), `chat ${scripted.model}`);
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(chat.events).toEqual([]);
    expect(tracer.openSpans).toBe(0);
  });

  it("records approvals as events on the tool span", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "deploy", arguments: { target: "staging" }, id: "ok" },
          { name: "deploy", arguments: { target: "prod" }, id: "no" },
        ],
      },
      { text: "done" },
    ]);
    const harness = new Harness({
      model,
      tools: [deploy],
      approver: {
        decide: async (request) =>
          request.toolCall.id === "ok" ? { approved: true } : { approved: false, reason: "not on a Friday" },
      },
    });
    await harness.run({ prompt: "ship", sink: tracer });
    const tools = byName(spans(), "execute_tool deploy");
    const approved = tools.find((span) => span.attributes[ATTR.toolCallId] === "ok");
    const denied = tools.find((span) => span.attributes[ATTR.toolCallId] === "no");
    expect(approved?.events.map((event) => event.name)).toEqual([
      "bridle.approval.requested",
      "bridle.approval.resolved",
    ]);
    expect(approved?.attributes[ATTR.approvalApproved]).toBe(true);
    expect(approved?.status.code).toBe(SpanStatusCode.UNSET);
    expect(denied?.attributes[ATTR.approvalApproved]).toBe(false);
    const resolved = denied?.events.find((event) => event.name === "bridle.approval.resolved");
    expect(resolved?.attributes).toMatchObject({
      [ATTR.approvalApproved]: false,
      [ATTR.approvalReason]: "not on a Friday",
    });
    expect(denied?.status.code).toBe(SpanStatusCode.ERROR);
    expect(["Denied", "ApprovalRejected"]).toContain(denied?.attributes[ATTR.errorType]);
    for (const tool of tools) expect(parentOf(tool)).toBe(idOf(one(spans(), "invoke_agent")));
    expect(tracer.openSpans).toBe(0);
  });

  it("ends a run paused for approval without error and links its resumed span to it", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "deploy", arguments: { target: "prod" }, id: "d1" }] },
      { text: "shipped" },
    ]);
    const harness = new Harness({ model, tools: [deploy], approver: askApprover });
    const paused = await harness.run({ prompt: "ship", sink: tracer });
    expect(paused.stopReason).toBe("approval_required");
    expect(tracer.openSpans).toBe(0);
    const first = one(spans(), "invoke_agent");
    expect(first.status.code).toBe(SpanStatusCode.UNSET);
    expect(first.attributes[ATTR.stopReason]).toBe("approval_required");
    const waiting = one(spans(), "execute_tool deploy");
    expect(waiting.attributes[ATTR.approvalPending]).toBe(true);
    expect(waiting.status.code).toBe(SpanStatusCode.UNSET);

    const resumed = await harness.resume(paused.resumeEnvelope, { d1: { approved: true } }, { sink: tracer });
    expect(resumed.stopReason).toBe("completed");
    expect(tracer.openSpans).toBe(0);
    const agents = byName(spans(), "invoke_agent");
    expect(agents).toHaveLength(2);
    const second = agents.find((span) => span !== first);
    expect(second?.links[0]?.context.spanId).toBe(idOf(first));
    expect(second?.attributes[ATTR.resumed]).toBe("approval");
    const ran = byName(spans(), "execute_tool deploy").find((span) => span !== waiting);
    expect(ran && parentOf(ran)).toBe(second && idOf(second));
    expect(ran?.attributes[ATTR.approvalApproved]).toBe(true);
    expect(ran?.events.map((event) => event.name)).toEqual(["bridle.approval.resolved"]);
    expect(ran?.links[0]?.context.spanId).toBe(idOf(waiting));
  });
});

describe("queued user messages on the agent span", () => {
  it("records when a steering message was queued and when the model got it", async () => {
    const { tracer, exporter } = memoryTracing();
    let stream: RunStream | undefined;
    const model = new ScriptedModel([
      () => {
        stream?.steer("use staging");
        return { text: "first" };
      },
      { text: "second" },
    ]);
    stream = new Harness({ model }).stream({ prompt: "go", observers: [tracer] });
    for await (const _ of stream) {
      // drain
    }
    expect((await stream.result).stopReason).toBe("completed");
    const agent = exporter.getFinishedSpans().find((span) => span.name.startsWith("invoke_agent"));
    const moments = (agent?.events ?? []).filter((event) => event.name.startsWith("bridle.user_message"));
    expect(moments.map((event) => [event.name, event.attributes?.["bridle.user_message.delivery"]])).toEqual([
      ["bridle.user_message.queued", "steer"],
      ["bridle.user_message.delivered", "steer"],
    ]);
  });
});
