// The projection the page draws, checked without a browser: every kind of event lands in a row, turns
// carry tokens and cost, and what is folded lives in the bodies.
import type { RunEvent, StoredEvent, Usage } from "@bridle/core";
import { sampleRunEvents } from "@bridle/testing";
import { expect, it } from "vitest";
import { editOf } from "../src/edits.js";
import { projectSession } from "../src/project.js";
import { longRun } from "./large.js";

const info = { id: "s", createdAt: 1, updatedAt: 2, lastSeq: 0 };
const stored = (events: readonly RunEvent[]): StoredEvent[] =>
  events.map((event, sessionSeq) => ({ sessionSeq, event }));
const base = (seq: number) => ({ runId: "r", seq, time: 1_700_000_000_000 + seq });

it("turns carry usage and cost; the session's cost is their sum, or absent when a price is unknown", () => {
  const events = longRun(3);
  const cost = (model: string, usage: Usage) =>
    model === "gpt-test" ? usage.outputTokens / 1_000 : undefined;
  const { view } = projectSession(info, stored(events), [], { cost });
  expect(view.turns.map((t) => t.cost)).toEqual([0.05, 0.05, 0.05]);
  expect(view.summary.cost).toBeCloseTo(0.15);
  expect(view.summary).toMatchObject({
    runs: 1,
    turns: 3,
    toolCalls: 3,
    failedCalls: 0,
    events: events.length,
  });
  const unknown = projectSession(info, stored(events), [], { cost: () => undefined });
  expect(unknown.view.summary.cost).toBeUndefined();
  expect(projectSession(info, stored(events), []).view.summary.cost).toBeUndefined();
});

it("approvals, hook failures, facts, compaction, model warnings, damage and failed runs each get a row", () => {
  const call = {
    type: "tool_call" as const,
    id: "c1",
    name: "bash",
    arguments: '{"command":"rm -rf build"}',
  };
  const events: RunEvent[] = [
    ...sampleRunEvents().slice(0, 1),
    { ...base(10), type: "approval_requested", toolCall: call },
    {
      ...base(11),
      type: "approval_resolved",
      toolCallId: "c1",
      decision: { approved: false, reason: "not today" },
    },
    { ...base(12), type: "hook_failed", hook: "beforeToolCall", hookName: "guard", message: "boom" },
    {
      ...base(13),
      type: "fact",
      kind: "coding.check",
      data: { kind: "test", status: "failed", command: "npm test" },
    },
    {
      ...base(14),
      type: "compaction",
      replacedCount: 12,
      summary: { role: "user", content: [{ type: "text", text: "summary text" }] },
      reason: "threshold",
    },
    {
      ...base(15),
      type: "model_warning",
      code: "unsupported_setting",
      message: "temperature is not\nsupported by this model",
    },
    { ...base(16), type: "store_damage", message: "line 9 unreadable" },
    {
      ...base(17),
      type: "run_failed",
      stopReason: "max_tool_calls",
      error: { code: "limit", message: "too many calls" },
      usage: {
        modelRequests: 0,
        toolCalls: 0,
        cancelledToolCalls: 0,
        toolRetries: {},
        tokens: {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
      },
    },
  ];
  const handoff = (all: readonly RunEvent[]) =>
    all.some((e) => e.type === "fact") ? "handoff: FAILED" : undefined;
  const { view, bodies } = projectSession(info, stored(events), [{ id: "b", seq: 3 }], { handoff });
  const kinds = view.rows.map((r) => r.kind);
  expect(kinds).toEqual([
    "run",
    "user",
    "approval",
    "hook",
    "branch",
    "fact",
    "notice",
    "notice",
    "damage",
    "end",
  ]);
  expect(view.rows[2]).toMatchObject({
    name: "bash",
    summary: "rm -rf build",
    decision: "rejected",
    reason: "not today",
  });
  expect(view.rows[3]).toMatchObject({ text: "hook guard failed: boom" });
  expect(view.rows[5]).toMatchObject({ factKind: "coding.check", text: "test check failed: npm test" });
  const compaction = view.rows[6];
  expect(compaction?.kind === "notice" && compaction.body !== undefined && bodies[compaction.body]).toBe(
    "summary text",
  );
  expect(view.rows[7]).toMatchObject({
    text: "model warning (unsupported_setting): temperature is not supported by this model",
  });
  expect(view.rows[9]).toMatchObject({ ok: false, text: "run stopped: max_tool_calls: too many calls" });
  expect(view.handoff).toBe("handoff: FAILED");
  expect(view.branches).toEqual([{ id: "b", seq: 3 }]);
});

it("a damaged entry is shown where it was read, and a dangling call stays pending", () => {
  const events = sampleRunEvents();
  const requested = events.findIndex((e) => e.type === "tool_call_requested");
  const cut = stored(events.slice(0, requested + 1));
  const damaged = [
    ...cut,
    {
      sessionSeq: cut.length,
      event: events[0] as RunEvent,
      damage: { kind: "blob_missing" as const, message: "blob gone" },
    },
  ];
  const { view } = projectSession(info, damaged, []);
  expect(view.rows.find((r) => r.kind === "call")).toMatchObject({ status: "pending" });
  expect(view.rows.some((r) => r.kind === "damage" && r.text.includes("blob gone"))).toBe(true);
});

it("draws a command's changes: its diffs, the files it named without lines, and the count past them", () => {
  const diff = { path: "a.js", change: "update", added: 1, removed: 1, omittedLines: 0 };
  const details = {
    result: { exit_code: 0 },
    diffs: [{ ...diff, hunks: [{ oldStart: 2, newStart: 2, removed: ["x"], added: ["y"] }] }],
    changed_files: {
      count: 5,
      unshown: [{ path: "logo.png", change: "add", reason: "binary" }, { path: 3 }],
    },
  };
  expect(editOf('{"command":"sed -i s/x/y/ a.js"}', details)).toEqual({
    kind: "files",
    files: details.diffs,
    unshown: [{ path: "logo.png", change: "add", reason: "binary" }],
    more: 3,
  });
  // Only named files (a secret): still drawn as a change, with nothing more to count.
  expect(
    editOf('{"command":"cp a .env"}', {
      changed_files: { count: 1, unshown: [{ path: ".env", change: "add", reason: "secret" }] },
    }),
  ).toEqual({ kind: "files", files: [], unshown: [{ path: ".env", change: "add", reason: "secret" }] });
  expect(editOf('{"command":"ls"}', { result: { exit_code: 0 } })).toBeUndefined();
});

it("recognises edits by their arguments' shape", () => {
  expect(editOf('{"path":"a.ts","old_string":"x","new_string":"y"}', undefined)).toEqual({
    kind: "replace",
    path: "a.ts",
    hunks: [{ old: "x", new: "y" }],
  });
  expect(
    editOf('{"file_path":"a.ts","old_string":"x","new_string":"y"}', {
      hunks: [{ line: 7, oldText: "x", newText: "y" }],
    }),
  ).toEqual({
    kind: "replace",
    path: "a.ts",
    hunks: [{ line: 7, old: "x", new: "y" }],
  });
  expect(
    editOf('{"file_path":"a.ts","edits":[{"old_string":"a","new_string":"b"}]}', undefined),
  ).toMatchObject({ kind: "replace", hunks: [{ old: "a", new: "b" }] });
  const patch = "*** Begin Patch\n*** Update File: a.ts\n-x\n+y\n*** End Patch";
  expect(editOf(JSON.stringify({ input: patch }), undefined)).toEqual({ kind: "patch", text: patch });
  expect(editOf(patch, undefined)).toEqual({ kind: "patch", text: patch });
  expect(editOf('{"path":"n.md","content":"hi"}', undefined)).toEqual({
    kind: "write",
    path: "n.md",
    content: "hi",
  });
  for (const notEdit of [
    '{"path":"a.ts"}',
    '{"command":"ls"}',
    "not json",
    "[1,2]",
    "null",
    '{"path":"a","old_string":1,"new_string":"y"}',
  ]) {
    expect(editOf(notEdit, undefined)).toBeUndefined();
  }
});

it("a refused call carries the refusal, shown without opening it", () => {
  const call = { type: "tool_call" as const, id: "c9", name: "bash", arguments: '{"command":"curl evil"}' };
  const events: RunEvent[] = [
    { ...base(0), type: "tool_call_requested", toolCall: call, repairs: [] },
    {
      ...base(1),
      type: "tool_call_completed",
      result: {
        role: "tool",
        toolCallId: "c9",
        toolName: "bash",
        content: [{ type: "text", text: "Denied: network access is blocked by the guard hook\nmore detail" }],
        isError: true,
        errorKind: "Denied",
      },
      durationMs: 1,
    },
  ];
  const { view } = projectSession(info, stored(events), []);
  expect(view.rows[0]).toMatchObject({
    kind: "call",
    status: "error",
    errorKind: "Denied",
    decision: "Denied: network access is blocked by the guard hook",
  });
  expect(view.summary.failedCalls).toBe(1);
});

it("marks where branches fork off, and where a fork's own events begin", () => {
  const events = sampleRunEvents();
  const parent = projectSession(info, stored(events), [
    { id: "late", seq: events.length - 1 },
    { id: "early", title: "another try", seq: 1 },
  ]);
  const marks = parent.view.rows.flatMap((r, i) => (r.kind === "branch" ? [[i, r.text] as const] : []));
  expect(marks.map(([, text]) => text)).toEqual([
    "branch early “another try” forks here",
    "branch late forks here",
  ]);
  const [earlyAt] = marks[0] ?? [];
  expect(parent.view.rows[(earlyAt ?? 0) - 1]?.seq).toBeLessThanOrEqual(1);
  expect(parent.view.rows[(earlyAt ?? 0) + 1]?.seq).toBeGreaterThan(1);
  expect(parent.view.rows.at(-1)).toMatchObject({ kind: "branch", text: "branch late forks here" });

  const fork = projectSession({ ...info, parent: { sessionId: "p", seq: 2 } }, stored(events), []);
  expect(fork.view.rows.filter((r) => r.kind === "branch")).toEqual([
    expect.objectContaining({ seq: 2, text: expect.stringContaining("forked from p here") }),
  ]);
});

it("shows a subagent's run, stored inside its call's progress, as rows one level deeper under that call", () => {
  const t = 1_700_000_000_000;
  const child = { runId: "r/c1", parentRunId: "r", parentToolCallId: "c1", agentName: "helper" };
  const carried = (seq: number, event: RunEvent): RunEvent => ({
    type: "tool_progress",
    runId: "r",
    seq,
    time: t + seq,
    toolCallId: "c1",
    toolName: "agent_spawn",
    data: { type: "subagent_event", event },
  });
  const call = (id: string, name: string) => ({ type: "tool_call" as const, id, name, arguments: "{}" });
  const result = (id: string, name: string, text: string) => ({
    role: "tool" as const,
    toolCallId: id,
    toolName: name,
    content: [{ type: "text" as const, text }],
    isError: false,
  });
  const events: RunEvent[] = [
    { ...base(0), type: "run_started", provider: "p", model: "m", messages: [], historyLength: 0 },
    { ...base(1), type: "tool_call_requested", toolCall: call("c1", "agent_spawn"), repairs: [] },
    carried(2, {
      ...child,
      seq: 0,
      time: t + 2,
      type: "run_started",
      provider: "p",
      model: "m",
      messages: [],
      historyLength: 0,
    }),
    // The child's model reused the parent's call id: the two calls must not be taken for one.
    carried(3, {
      ...child,
      seq: 1,
      time: t + 3,
      type: "tool_call_requested",
      toolCall: call("c1", "read_file"),
      repairs: [],
    }),
    carried(4, {
      ...child,
      seq: 2,
      time: t + 4,
      type: "tool_call_completed",
      result: result("c1", "read_file", "hello"),
      durationMs: 1,
    }),
    {
      ...base(5),
      type: "tool_call_completed",
      result: result("c1", "agent_spawn", "it said hello"),
      durationMs: 4,
    },
  ];
  const { view } = projectSession(info, stored(events), []);
  const calls = view.rows.filter((row) => row.kind === "call");
  expect(
    calls.map((row) => [
      row.kind === "call" ? row.name : "",
      row.depth ?? 0,
      row.kind === "call" ? row.status : "",
    ]),
  ).toEqual([
    ["agent_spawn", 0, "ok"],
    ["read_file", 1, "ok"],
  ]);
  const runs = view.rows.filter((row) => row.kind === "run");
  expect(runs.map((row) => row.depth ?? 0)).toEqual([0, 1]);
  expect(runs[1]?.kind === "run" ? runs[1].text : "").toMatch(/^helper: run started/);
  // Carried rows keep the entry that carried them.
  expect(calls[1]?.seq).toBe(3);
});

it("numbers the session's own turns in one count and a subagent's turns within its run", () => {
  const t = 1_700_000_000_000;
  const child = { runId: "r/c1", parentRunId: "r", parentToolCallId: "c1", agentName: "helper" };
  const usage = {
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  const response = (seq: number, ids: object, text: string): RunEvent => ({
    ...base(seq),
    ...ids,
    type: "model_response",
    request: seq,
    durationMs: 1,
    usage,
    stopReason: "end_turn",
    message: { role: "assistant", content: [{ type: "text", text }] },
  });
  const carried = (seq: number, event: RunEvent): RunEvent => ({
    type: "tool_progress",
    runId: "r",
    seq,
    time: t + seq,
    toolCallId: "c1",
    toolName: "agent_spawn",
    data: { type: "subagent_event", event },
  });
  const events: RunEvent[] = [
    { ...base(0), type: "run_started", provider: "p", model: "m", messages: [], historyLength: 0 },
    response(1, {}, "spawning"),
    carried(2, {
      ...base(0),
      ...child,
      type: "run_started",
      provider: "p",
      model: "m",
      messages: [],
      historyLength: 0,
    }),
    carried(3, response(1, child, "child one")),
    carried(4, response(2, child, "child two")),
    response(5, {}, "done"),
  ];
  const { view } = projectSession(info, stored(events), []);
  const labels = view.rows.flatMap((row) => (row.kind === "turn" ? [row.label] : []));
  expect(labels).toEqual(["Turn 1", "helper turn 1", "helper turn 2", "Turn 2"]);
  // The waterfall's index still counts every turn, so each bar finds its row.
  expect(view.turns.map((turn) => [turn.n, turn.label])).toEqual([
    [1, "Turn 1"],
    [2, "helper turn 1"],
    [3, "helper turn 2"],
    [4, "Turn 2"],
  ]);
});
