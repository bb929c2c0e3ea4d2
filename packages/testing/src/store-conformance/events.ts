import type { RunEvent, ToolResultMessage } from "@bridle/core";

const usage = {
  inputTokens: 10,
  outputTokens: 5,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
const runUsage = { modelRequests: 1, toolCalls: 1, cancelledToolCalls: 0, toolRetries: {}, tokens: usage };

export interface SampleTurnOptions {
  readonly runId?: string;
  /** The first event's `seq` in its run (default 0). */
  readonly seq?: number;
  readonly prompt?: string;
  readonly reply?: string;
  readonly toolOutput?: string;
  readonly toolCallId?: string;
}

/**
 * One realistic run as a store sees it: a prompt, a streamed reply that calls a tool, the call and its
 * result, the final answer and the terminal event (nine events).
 */
export function sampleRunEvents(options: SampleTurnOptions = {}): RunEvent[] {
  const runId = options.runId ?? "run-1";
  let seq = options.seq ?? 0;
  const time = 1_700_000_000_000 + seq;
  const base = () => ({ runId, seq: seq++, time });
  const callId = options.toolCallId ?? `call-${runId}`;
  const call = {
    type: "tool_call" as const,
    id: callId,
    name: "read_file",
    arguments: '{"path":"notes.md"}',
  };
  const reply = options.reply ?? "Let me read the notes first.";
  const result: ToolResultMessage = {
    role: "tool",
    toolCallId: callId,
    toolName: "read_file",
    content: [
      { type: "text", text: options.toolOutput ?? "# Notes\nThe deploy script lives in ops/deploy.sh" },
    ],
    details: { path: "notes.md", lines: 2 },
    isError: false,
  };
  return [
    {
      ...base(),
      type: "run_started",
      provider: "scripted",
      model: "scripted-model",
      messages: [
        { role: "user", content: [{ type: "text", text: options.prompt ?? "Where is the deploy script?" }] },
      ],
      historyLength: 0,
    },
    { ...base(), type: "model_request", request: 1, messageCount: 1, toolNames: ["read_file"] },
    { ...base(), type: "text_delta", delta: reply },
    {
      ...base(),
      type: "model_response",
      request: 1,
      message: { role: "assistant", content: [{ type: "text", text: reply }, call], provider: "scripted" },
      usage,
      stopReason: "tool_use",
      durationMs: 12,
    },
    { ...base(), type: "tool_call_requested", toolCall: call, repairs: [] },
    { ...base(), type: "tool_call_completed", result, durationMs: 3 },
    { ...base(), type: "model_request", request: 2, messageCount: 3, toolNames: ["read_file"] },
    {
      ...base(),
      type: "model_response",
      request: 2,
      message: { role: "assistant", content: [{ type: "text", text: "It is ops/deploy.sh." }] },
      usage,
      stopReason: "end_turn",
      durationMs: 9,
    },
    {
      ...base(),
      type: "run_completed",
      stopReason: "completed",
      finalText: "It is ops/deploy.sh.",
      usage: runUsage,
    },
  ];
}

/** A single small event whose text names `seq`: handy for volume tests and crash checks. */
export function numberedEvent(seq: number, runId = "run-n"): RunEvent {
  return {
    runId,
    seq,
    time: 1_700_000_000_000 + seq,
    type: "model_response",
    request: 1,
    message: { role: "assistant", content: [{ type: "text", text: `event number ${seq} of the run` }] },
    usage,
    stopReason: "end_turn",
    durationMs: 1,
  };
}
