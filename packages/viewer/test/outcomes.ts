// A session as the CLI records a coding run with a subagent: a bash call whose command exits 1 (the call
// itself succeeded), the coding overlay's failing check and command facts, and a subagent's run nested
// under the `task` call that started it. `open` leaves the last run without its end, as while it works.
import type { RunEvent, Usage } from "@bridle/core";

const usage: Usage = {
  inputTokens: 100,
  outputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
const runUsage = { tokens: usage, modelRequests: 1, toolCalls: 1 };

export const FAILING_OUTPUT = "FAIL test/cart.test.js\n  total counts quantity\n";

export function outcomeEvents(options: { readonly open?: boolean } = {}): RunEvent[] {
  let seq = 0;
  const at = (runId: string, extra: Record<string, unknown> = {}) => ({
    runId,
    seq: seq++,
    time: 1_700_000_000_000 + seq * 100,
    ...extra,
  });
  const child = { parentRunId: "main", parentToolCallId: "call_task", agentName: "explorer" };
  const events = [
    {
      ...at("main"),
      type: "run_started",
      provider: "openai",
      model: "gpt-test",
      messages: [],
      historyLength: 0,
    },
    {
      ...at("main"),
      type: "tool_call_requested",
      toolCall: { type: "tool_call", id: "call_bash", name: "bash", arguments: '{"command":"npm test"}' },
      repairs: [],
    },
    {
      ...at("main"),
      type: "tool_call_completed",
      durationMs: 900,
      result: {
        role: "tool",
        toolCallId: "call_bash",
        toolName: "bash",
        isError: false,
        content: [
          {
            type: "text",
            text: JSON.stringify({ exit_code: 1, stdout: FAILING_OUTPUT, stderr: "", timed_out: false }),
          },
        ],
      },
    },
    {
      ...at("main"),
      type: "fact",
      kind: "coding.command",
      data: { command: "npm test", exitCode: 1 },
    },
    {
      ...at("main"),
      type: "fact",
      kind: "coding.check",
      data: { kind: "test", status: "failed", command: "npm test", output: FAILING_OUTPUT },
    },
    {
      ...at("main"),
      type: "fact",
      kind: "coding.changes",
      data: { files: [{ path: "src/cart.js", added: 3, removed: 1 }], flags: [] },
    },
    {
      ...at("main"),
      type: "tool_call_requested",
      toolCall: {
        type: "tool_call",
        id: "call_task",
        name: "task",
        arguments: '{"prompt":"find the tests"}',
      },
      repairs: [],
    },
    {
      ...at("sub", child),
      type: "run_started",
      provider: "openai",
      model: "gpt-test",
      messages: [{ role: "user", content: [{ type: "text", text: "find the tests" }] }],
      historyLength: 0,
    },
    {
      ...at("sub", child),
      type: "model_response",
      request: 1,
      durationMs: 50,
      usage,
      stopReason: "end_turn",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "The tests are in test/cart.test.js." }],
      },
    },
    { ...at("sub", child), type: "run_completed", stopReason: "completed", finalText: "", usage: runUsage },
    {
      ...at("main"),
      type: "tool_call_completed",
      durationMs: 300,
      result: {
        role: "tool",
        toolCallId: "call_task",
        toolName: "task",
        isError: false,
        content: [{ type: "text", text: "The tests are in test/cart.test.js." }],
      },
    },
  ] as RunEvent[];
  if (!options.open)
    events.push({
      ...at("main"),
      type: "run_completed",
      stopReason: "completed",
      finalText: "",
      usage: runUsage,
    } as RunEvent);
  return events;
}
