import {
  askApprover,
  BridleError,
  closeDanglingCalls,
  defineTool,
  Harness,
  type Message,
  projectTranscript,
  type RunEvent,
  type RunStream,
  textOf,
  undeliveredMessages,
} from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectWellFormed, sleepTool } from "./helpers.js";

function texts(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (message.role === "tool") return `tool:${message.toolCallId}`;
    if (message.role === "system") return `system:${message.content}`;
    const text = textOf(message.content);
    return `${message.role}:${text}`;
  });
}

async function collect(stream: RunStream): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("steering", () => {
  it("a message steered during a tool batch arrives after the whole batch and before the next request", async () => {
    let stream: RunStream | undefined;
    const log: string[] = [];
    const steerer = defineTool({
      name: "steerer",
      description: "Queues a steering message while it runs",
      inputSchema: z.object({}),
      execute: async () => {
        stream?.steer("use the staging database instead");
        return { content: "steered" };
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "a", name: "steerer", arguments: {} },
          { id: "b", name: "sleep", arguments: { ms: 50, label: "b" } },
        ],
      },
      { text: "switched to staging" },
    ]);
    const harness = new Harness({ model, tools: [steerer, sleepTool("sleep", log)] });
    stream = harness.stream({ prompt: "migrate" });
    const events = await collect(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    // The first request did not see it; the second sees it after both results of the batch.
    expect(texts(model.requests[0]?.messages ?? [])).toEqual(["user:migrate"]);
    expect(texts(model.requests[1]?.messages ?? [])).toEqual([
      "user:migrate",
      "assistant:",
      "tool:a",
      "tool:b",
      "user:use the staging database instead",
    ]);
    const kinds = events.map((event) => event.type);
    const queued = kinds.indexOf("user_message_queued");
    const delivered = kinds.indexOf("user_message_delivered");
    const lastResult = kinds.lastIndexOf("tool_call_completed");
    const secondRequest = kinds.lastIndexOf("model_request");
    expect(queued).toBeGreaterThan(kinds.indexOf("tool_call_requested"));
    expect(queued).toBeLessThan(lastResult);
    expect(delivered).toBeGreaterThan(lastResult);
    expect(delivered).toBeLessThan(secondRequest);
    const queuedEvent = events[queued];
    const deliveredEvent = events[delivered];
    expect(queuedEvent?.type === "user_message_queued" && queuedEvent.delivery).toBe("steer");
    expect(deliveredEvent?.type === "user_message_delivered" && deliveredEvent.queueId).toBe(
      queuedEvent?.type === "user_message_queued" && queuedEvent.queueId,
    );
    expectWellFormed(result.messages);
    expect(result.undelivered).toBeUndefined();
  });

  it("a message steered while the last turn streams keeps the run going", async () => {
    let stream: RunStream | undefined;
    const model = new ScriptedModel([
      () => {
        stream?.steer("also mention the tests");
        return { text: "done" };
      },
      { text: "done, tests mentioned" },
    ]);
    stream = new Harness({ model }).stream({ prompt: "summarize" });
    await collect(stream);
    const result = await stream.result;
    expect(result.finalText).toBe("done, tests mentioned");
    expect(texts(model.requests[1]?.messages ?? [])).toEqual([
      "user:summarize",
      "assistant:done",
      "user:also mention the tests",
    ]);
  });

  it("a message steered before the run starts is announced after run_started and sent with the first request", async () => {
    const model = new ScriptedModel([{ text: "ok" }]);
    const stream = new Harness({ model }).stream({ prompt: "hello" });
    stream.steer("in French, please");
    const events = await collect(stream);
    expect(events.map((event) => event.type).slice(0, 4)).toEqual([
      "run_started",
      "user_message_queued",
      "user_message_delivered",
      "model_request",
    ]);
    expect(texts(model.requests[0]?.messages ?? [])).toEqual(["user:hello", "user:in French, please"]);
  });

  it("once the run has ended, a message is refused with run_ended instead of being lost", async () => {
    const stream = new Harness({ model: new ScriptedModel([{ text: "ok" }]) }).stream({ prompt: "hi" });
    await collect(stream);
    await stream.result;
    expect(() => stream.steer("too late")).toThrow(BridleError);
    expect(() => stream.followUp("too late")).toThrow(expect.objectContaining({ code: "run_ended" }));
  });
});

describe("follow-ups", () => {
  it("a follow-up waits through tool batches and continues the run once it would have finished", async () => {
    let stream: RunStream | undefined;
    const queuer = defineTool({
      name: "queuer",
      description: "Queues a follow-up while it runs",
      inputSchema: z.object({}),
      execute: async () => {
        stream?.followUp("now write the changelog");
        return { content: "queued" };
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "q", name: "queuer", arguments: {} }] },
      { text: "fixed the bug" },
      { text: "changelog written" },
    ]);
    stream = new Harness({ model, tools: [queuer] }).stream({ prompt: "fix the bug" });
    const events = await collect(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(result.finalText).toBe("changelog written");
    // Not delivered after the batch: only once the model had finished.
    expect(texts(model.requests[1]?.messages ?? [])).toEqual(["user:fix the bug", "assistant:", "tool:q"]);
    expect(texts(model.requests[2]?.messages ?? [])).toEqual([
      "user:fix the bug",
      "assistant:",
      "tool:q",
      "assistant:fixed the bug",
      "user:now write the changelog",
    ]);
    const delivered = events.find((event) => event.type === "user_message_delivered");
    expect(delivered?.type === "user_message_delivered" && delivered.delivery).toBe("follow_up");
    expect(events.filter((event) => event.type === "run_completed")).toHaveLength(1);
  });
});

describe("queued messages across a session resume", () => {
  it("delivered ones are in the resumed transcript where they arrived; undelivered ones are delivered by the next run", async () => {
    const recorded: RunEvent[] = [];
    const sink = { write: (event: RunEvent) => void recorded.push(event) };
    let stream: RunStream | undefined;
    const steerer = defineTool({
      name: "steerer",
      description: "Queues a steering message and a follow-up",
      inputSchema: z.object({}),
      execute: async () => {
        stream?.steer("steer: smaller diff");
        stream?.followUp("follow-up: add a test");
        return { content: "ok" };
      },
    });
    const first = new ScriptedModel([
      { toolCalls: [{ id: "s", name: "steerer", arguments: {} }] },
      { text: "smaller diff done" },
      { text: "test added" },
    ]);
    const harness = new Harness({ model: first, tools: [steerer] });
    stream = harness.stream({ prompt: "refactor", sessionId: "s1", sink });
    await collect(stream);
    expect((await stream.result).stopReason).toBe("completed");

    // A second run is aborted while its model streams, with a steering message still waiting.
    const controller = new AbortController();
    const second = new ScriptedModel([
      () => {
        stream?.steer("steer: stop after this");
        controller.abort();
        return { text: "never seen", delayMs: 1_000 };
      },
    ]);
    stream = new Harness({ model: second, tools: [steerer] }).stream({
      prompt: "next task",
      history: closeDanglingCalls(projectTranscript(recorded)),
      sessionId: "s1",
      sink,
      signal: controller.signal,
    });
    await collect(stream);
    const aborted = await stream.result;
    expect(aborted.stopReason).toBe("aborted");
    expect(aborted.undelivered?.map((item) => textOf(item.message.content))).toEqual([
      "steer: stop after this",
    ]);

    // Resume the session from its events alone, as a store would give them back.
    const replayed: RunEvent[] = JSON.parse(JSON.stringify(recorded));
    const history = closeDanglingCalls(projectTranscript(replayed));
    expect(texts(history)).toEqual([
      "user:refactor",
      "assistant:",
      "tool:s",
      "user:steer: smaller diff",
      "assistant:smaller diff done",
      "user:follow-up: add a test",
      "assistant:test added",
      "user:next task",
    ]);
    const waiting = undeliveredMessages(replayed);
    expect(waiting.map((item) => textOf(item.message.content))).toEqual(["steer: stop after this"]);
    const third = new ScriptedModel([{ text: "stopped" }]);
    stream = new Harness({ model: third }).stream({
      prompt: "go on",
      history,
      queued: waiting,
      sessionId: "s1",
      sink,
    });
    await collect(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(texts(third.requests[0]?.messages ?? []).slice(-2)).toEqual([
      "user:go on",
      "user:steer: stop after this",
    ]);
    // It keeps its queue id, so the session now shows it delivered.
    expect(undeliveredMessages(recorded)).toEqual([]);
  });
});

describe("queued messages across an approval pause", () => {
  it("a message queued before the pause is handed back undelivered and delivered by the resumed run", async () => {
    const deploy = defineTool({
      name: "deploy",
      description: "deploys",
      inputSchema: z.object({}),
      annotations: { requires_approval: true },
      execute: async () => ({ content: "deployed" }),
    });
    let stream: RunStream | undefined;
    const model = new ScriptedModel([
      () => {
        stream?.steer("deploy to the canary only");
        return { toolCalls: [{ id: "d", name: "deploy", arguments: {} }] };
      },
      { text: "deployed to the canary" },
    ]);
    const harness = new Harness({ model, tools: [deploy], approver: askApprover, approvalSecret: "k" });
    stream = harness.stream({ prompt: "ship it" });
    await collect(stream);
    const paused = await stream.result;
    expect(paused.stopReason).toBe("approval_required");
    expect(paused.undelivered?.map((item) => textOf(item.message.content))).toEqual([
      "deploy to the canary only",
    ]);

    const resumed = harness.resumeApprovals(
      paused.resumeEnvelope,
      { d: { approved: true } },
      { queued: paused.undelivered ?? [] },
    );
    const events = await collect(resumed);
    expect((await resumed.result).stopReason).toBe("completed");
    // The paused batch runs first; the message then arrives before the next request.
    const kinds = events.map((event) => event.type);
    expect(kinds.indexOf("user_message_delivered")).toBeGreaterThan(kinds.indexOf("tool_call_completed"));
    expect(texts(model.requests[1]?.messages ?? []).slice(-2)).toEqual([
      "tool:d",
      "user:deploy to the canary only",
    ]);
  });
});

describe("steering and compaction", () => {
  it("a message steered while the transcript is being compacted goes with the request that follows", async () => {
    const bulky = defineTool({
      name: "bulky",
      description: "Returns a lot of text",
      inputSchema: z.object({ n: z.number() }),
      execute: async ({ n }) => ({ content: `block ${n} `.repeat(400) }),
    });
    let stream: RunStream | undefined;
    const summarizer = new ScriptedModel(() => {
      stream?.steer("keep it short from here");
      return { text: "the blocks were read" };
    });
    const model = new ScriptedModel([
      ...[1, 2, 3, 4].map((n) => ({ toolCalls: [{ id: `b${n}`, name: "bulky", arguments: { n } }] })),
      { text: "done" },
    ]);
    const harness = new Harness({
      model,
      tools: [bulky],
      context: {
        contextWindow: 4_000,
        compaction: { threshold: 0.5, keepRecentTokens: 200, model: summarizer },
      },
    });
    stream = harness.stream({ prompt: "read the blocks" });
    const events = await collect(stream);
    expect((await stream.result).stopReason).toBe("completed");
    const compacted = events.findIndex((event) => event.type === "compaction");
    expect(compacted).toBeGreaterThan(-1);
    const next = events.slice(compacted).find((event) => event.type === "model_request");
    const request = next?.type === "model_request" ? next.request : 0;
    expect(texts(model.requests[request - 1]?.messages ?? []).at(-1)).toBe("user:keep it short from here");
    expect(summarizer.calls).toBe(1);
  });
});
