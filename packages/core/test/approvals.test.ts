import { join } from "node:path";
import {
  type ApprovalEnvelope,
  type Approver,
  askApprover,
  BridleError,
  closeDanglingCalls,
  defineTool,
  Harness,
  type RunEvent,
  userText,
} from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { eventTypes, expectWellFormed, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
const savedConfig = process.env.XDG_CONFIG_HOME;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
  // Harnesses here give no approvalSecret: the user's key is made in this test's own config folder.
  process.env.XDG_CONFIG_HOME = join(dir, ".config");
});
afterEach(async () => {
  if (savedConfig === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfig;
  await cleanup();
});

function tools(log: string[]) {
  const deploy = defineTool({
    name: "deploy",
    description: "deploys a service",
    inputSchema: z.object({ service: z.string() }),
    annotations: { requires_approval: true, destructive: true },
    execute: async ({ service }) => {
      log.push(`deploy:${service}`);
      return { content: `deployed ${service}` };
    },
  });
  const status = defineTool({
    name: "status",
    description: "reads status",
    inputSchema: z.object({}),
    annotations: { read_only: true },
    execute: async () => {
      log.push("status");
      return { content: "all green" };
    },
  });
  return [deploy, status];
}

const usage = { inputTokens: 100, outputTokens: 10 };

function pausingScript() {
  return [
    {
      toolCalls: [
        { name: "deploy", id: "c1", arguments: { service: "api" } },
        { name: "status", id: "c2" },
        { name: "deploy", id: "c3", arguments: { service: "db" } },
      ],
      usage,
    },
    { text: "deployed what you allowed", usage },
  ];
}

async function pause(log: string[], approver: Approver = askApprover) {
  const model = new ScriptedModel(pausingScript());
  const harness = new Harness({ model, tools: tools(log), workspace: dir, approver });
  const stream = harness.stream({ prompt: "deploy everything" });
  const events = await collectEvents(stream);
  return { harness, model, events, result: await stream.result };
}

describe("approval pause", () => {
  it("pauses before any call of the batch runs and returns pending calls and an envelope", async () => {
    const log: string[] = [];
    const { events, result } = await pause(log);
    expect(result.stopReason).toBe("approval_required");
    expect(log).toEqual([]);
    expect(result.pendingApprovals?.map((p) => [p.toolCall.id, p.args])).toEqual([
      ["c1", { service: "api" }],
      ["c3", { service: "db" }],
    ]);
    expect(result.resumeEnvelope).toMatchObject({
      kind: "bridle.approval_pause",
      version: 1,
      pending: ["c1", "c3"],
    });
    expect(eventTypes(events)).toEqual([
      "run_started",
      "model_request",
      "model_response",
      "approval_requested",
      "approval_requested",
      "run_failed",
    ]);
    // Plain JSON: it survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(result.resumeEnvelope))).toEqual(result.resumeEnvelope);
  });

  it("resumes in the same process: approved runs once, rejected never, siblings run, usage not doubled", async () => {
    const log: string[] = [];
    const { harness, model, events: first, result: paused } = await pause(log);
    const stream = harness.resumeApprovals(paused.resumeEnvelope, {
      c1: { approved: true },
      c3: { approved: false, reason: "not on a Friday" },
    });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(result.runId).toBe(paused.runId);
    expect(log.sort()).toEqual(["deploy:api", "status"]);
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map(resultText)).toEqual([
      "deployed api",
      "all green",
      "ApprovalRejected: the user rejected this call: not on a Friday",
    ]);
    expect(results[2]?.role === "tool" && results[2].errorKind).toBe("ApprovalRejected");
    expectWellFormed(result.messages);
    // One logical run: the sequence goes on, and the counters are not counted twice.
    expect(events[0]).toMatchObject({ type: "run_started", resumed: "approval", seq: first.length });
    expect(result.usage.modelRequests).toBe(2);
    expect(result.usage.toolCalls).toBe(3);
    expect(result.usage.tokens.inputTokens).toBe(200);
    expect(model.calls).toBe(2);
    expect(events.filter((e) => e.type === "approval_resolved")).toHaveLength(2);
    expect(events.filter((e) => e.type === "tool_call_requested")).toHaveLength(3);
    // Resuming the same pause again would run the approved deploy twice: refused.
    expect(() =>
      harness.resumeApprovals(paused.resumeEnvelope, { c1: { approved: true }, c3: { approved: true } }),
    ).toThrow(expect.objectContaining({ code: "envelope_already_resumed" }));
    expect(log.filter((entry) => entry === "deploy:api")).toHaveLength(1);
  });

  it("lets a policy approver decide some calls at once and ask about others", async () => {
    const log: string[] = [];
    const policy: Approver = {
      scope: "every_call",
      decide: async (request) => {
        if (request.annotations.read_only) return { approved: true };
        return (request.args as { service: string }).service === "db"
          ? { approved: false, reason: "db is frozen" }
          : "ask";
      },
    };
    const { harness, result: paused } = await pause(log, policy);
    expect(paused.pendingApprovals?.map((p) => p.toolCall.id)).toEqual(["c1"]);
    const result = await harness.resume(JSON.stringify(paused.resumeEnvelope), { c1: { approved: true } });
    expect(result.messages.filter((m) => m.role === "tool").map(resultText)).toEqual([
      "deployed api",
      "all green",
      "Denied: the user did not approve this call: db is frozen",
    ]);
    expect(log.sort()).toEqual(["deploy:api", "status"]);
  });

  it("does not pause when the approver decides everything (a policy)", async () => {
    const log: string[] = [];
    const { result } = await pause(log, { decide: async () => ({ approved: true }) });
    expect(result.stopReason).toBe("completed");
    expect(log.sort()).toEqual(["deploy:api", "deploy:db", "status"]);
  });

  it("an aborted run does not pause: every call is answered Cancelled", async () => {
    const controller = new AbortController();
    const approver: Approver = {
      decide: async () => {
        controller.abort();
        return "ask";
      },
    };
    const log: string[] = [];
    const model = new ScriptedModel(pausingScript());
    const result = await new Harness({ model, tools: tools(log), workspace: dir, approver }).run({
      prompt: "go",
      signal: controller.signal,
    });
    expect(result.stopReason).toBe("aborted");
    expect(result.resumeEnvelope).toBeUndefined();
    expect(log).toEqual([]);
    expectWellFormed(result.messages);
  });

  it("a paused transcript used as plain history has its open calls answered", async () => {
    const { result: paused } = await pause([]);
    const model = new ScriptedModel([{ text: "fine" }]);
    const result = await new Harness({ model, tools: tools([]), workspace: dir }).run({
      prompt: "never mind",
      history: paused.messages,
    });
    expectWellFormed(result.messages);
    const sent = model.requests[0]?.messages ?? [];
    expect(sent.filter((m) => m.role === "tool").map(resultText)).toEqual([
      "Cancelled: this call was never answered: the earlier run stopped before it ran",
      "Cancelled: this call was never answered: the earlier run stopped before it ran",
      "Cancelled: this call was never answered: the earlier run stopped before it ran",
    ]);
    expect(closeDanglingCalls([userText("hi")])).toHaveLength(1);
  });
});

describe("approval pause with structured output", () => {
  it("resumes a batch whose turn also called final_result (answered before the pause)", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "deploy", id: "c1", arguments: { service: "api" } },
          { name: "final_result", id: "f1", arguments: { ok: true } },
        ],
      },
      { toolCalls: [{ name: "final_result", id: "f2", arguments: { ok: true } }] },
    ]);
    const harness = new Harness({
      model,
      tools: tools(log),
      workspace: dir,
      approver: askApprover,
      output: { mode: "tool", schema: z.object({ ok: z.boolean() }) },
    });
    const paused = await harness.run({ prompt: "deploy, then report" });
    expect(paused.stopReason).toBe("approval_required");
    expect(paused.resumeEnvelope?.batch).toEqual(["c1"]);
    const result = await harness.resume(JSON.parse(JSON.stringify(paused.resumeEnvelope)), {
      c1: { approved: true },
    });
    expect(result.stopReason).toBe("completed");
    expect(result.output).toEqual({ ok: true });
    expect(log).toEqual(["deploy:api"]);
    expectWellFormed(result.messages);
  });
});

describe("refused resumes change nothing", () => {
  async function refused(
    mutate: (envelope: Record<string, unknown>) => unknown,
    decisions: Record<string, { approved: boolean }> = { c1: { approved: true }, c3: { approved: true } },
    harnessTools?: ReturnType<typeof tools>,
  ): Promise<BridleError> {
    const log: string[] = [];
    const { result: paused, model } = await pause(log);
    const envelope = structuredClone(paused.resumeEnvelope) as unknown as Record<string, unknown>;
    const before = JSON.stringify(envelope);
    const harness = new Harness({
      model,
      tools: harnessTools ?? tools(log),
      workspace: dir,
      approver: askApprover,
    });
    let caught: unknown;
    try {
      harness.resumeApprovals(mutate(envelope), decisions);
    } catch (error) {
      caught = error;
    }
    expect(log).toEqual([]);
    expect(model.calls).toBe(1);
    // The caller's envelope is left exactly as it was: it can be fixed and resumed.
    if (mutate === identity) expect(JSON.stringify(envelope)).toBe(before);
    expect(caught).toBeInstanceOf(BridleError);
    return caught as BridleError;
  }
  const identity = (envelope: Record<string, unknown>) => envelope;

  it("refuses an unknown version", async () => {
    const error = await refused((e) => ({ ...e, version: 2 }));
    expect(error.code).toBe("envelope_version");
    expect(error.message).toMatch(/unknown approval envelope version 2/);
  });

  it("refuses edited JSON (an approved argument changed)", async () => {
    const error = await refused((e) => {
      const text = JSON.stringify(e).replace('{\\"service\\":\\"db\\"}', '{\\"service\\":\\"prod-db\\"}');
      expect(text).toContain("prod-db");
      return text;
    });
    expect(error.code).toBe("envelope_tampered");
  });

  it("refuses edited accounting", async () => {
    const error = await refused((e) => ({ ...e, usage: { ...(e.usage as object), modelRequests: 0 } }));
    expect(error.code).toBe("envelope_tampered");
  });

  it("refuses decisions that do not cover exactly the pending ids", async () => {
    const missing = await refused(identity, { c1: { approved: true } });
    expect(missing.code).toBe("approval_decisions_mismatch");
    expect(missing.message).toMatch(/missing decisions for c3/);
    const extra = await refused(identity, {
      c1: { approved: true },
      c2: { approved: true },
      c3: { approved: true },
    });
    expect(extra.message).toMatch(/not pending: c2/);
  });

  it("refuses pending ids that do not match the paused batch", async () => {
    const error = await refused((e) => ({ ...e, pending: ["c1", "c9"] }), {
      c1: { approved: true },
      c9: { approved: true },
    });
    expect(["envelope_tampered", "envelope_invalid"]).toContain(error.code);
  });

  it("refuses a harness with a different tool set", async () => {
    const changed = tools([]).map((tool) =>
      tool.name === "status" ? { ...tool, description: "reads status (v2)" } : tool,
    );
    const error = await refused(identity, undefined, changed);
    expect(error.code).toBe("envelope_tools_changed");
  });

  it("refuses something that is not an envelope", async () => {
    expect((await refused(() => "{not json")).code).toBe("envelope_invalid");
    expect((await refused(() => ({ kind: "transcript" }))).code).toBe("envelope_invalid");
    expect((await refused((e) => ({ ...e, batch: "c1" }))).code).toBe("envelope_invalid");
  });

  it("with a given secret, refuses envelopes sealed under any other key", async () => {
    const model = new ScriptedModel(pausingScript());
    const sealed = new Harness({
      model,
      tools: tools([]),
      workspace: dir,
      approver: askApprover,
      approvalSecret: "s3cret",
    });
    const paused = await sealed.run({ prompt: "go" });
    const envelope = paused.resumeEnvelope as ApprovalEnvelope;
    expect(envelope.integrity).toMatch(/^hmac-sha256:/);
    const other = new Harness({ model, tools: tools([]), workspace: dir, approvalSecret: "other" });
    expect(() => other.resumeApprovals(envelope, { c1: { approved: true }, c3: { approved: true } })).toThrow(
      /does not match its seal/,
    );
    // A harness on the user's own key is another key too.
    const plain = new Harness({ model, tools: tools([]), workspace: dir });
    expect(() => plain.resumeApprovals(envelope, { c1: { approved: true }, c3: { approved: true } })).toThrow(
      /does not match its seal/,
    );
    // And the right secret resumes it.
    const resumed = await sealed.resume(envelope, { c1: { approved: false }, c3: { approved: false } });
    expect(resumed.stopReason).toBe("completed");
  });
});

describe("approval events", () => {
  it("record the resumed calls before they execute", async () => {
    const order: string[] = [];
    const log: string[] = [];
    const { harness, result: paused } = await pause(log);
    await harness.resume(
      paused.resumeEnvelope,
      { c1: { approved: true }, c3: { approved: true } },
      {
        sink: {
          write: (event: RunEvent) => {
            if (event.type === "tool_call_requested") order.push(`recorded:${event.toolCall.id}`);
          },
        },
      },
    );
    expect(order).toEqual(["recorded:c1", "recorded:c2", "recorded:c3"]);
    expect(log.sort()).toEqual(["deploy:api", "deploy:db", "status"]);
  });
});
