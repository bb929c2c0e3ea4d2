// A long session built event by event: `turns` model turns, each calling one tool, four events a turn.
import type { RunEvent, SessionStore } from "@bridle/core";

const usage = {
  inputTokens: 900,
  outputTokens: 50,
  cacheReadTokens: 300,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

export function longRun(turns: number, runId = "long-run"): RunEvent[] {
  const events: RunEvent[] = [];
  let seq = 0;
  let time = 1_750_000_000_000;
  const base = () => {
    time += 7;
    return { runId, seq: seq++, time };
  };
  events.push({
    ...base(),
    type: "run_started",
    provider: "scripted",
    model: "gpt-test",
    messages: [{ role: "user", content: [{ type: "text", text: "Walk through every file." }] }],
    historyLength: 0,
  });
  for (let n = 1; n <= turns; n++) {
    const id = `call_${n}`;
    const args = JSON.stringify({ path: `src/file-${n}.ts` });
    events.push({
      ...base(),
      type: "model_request",
      request: n,
      messageCount: n * 2,
      toolNames: ["read_file"],
    });
    events.push({
      ...base(),
      type: "model_response",
      request: n,
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `Step ${n}: reading the next file.` },
          { type: "tool_call", id, name: "read_file", arguments: args },
        ],
        model: "gpt-test",
      },
      usage,
      stopReason: "tool_use",
      durationMs: 5,
    });
    events.push({
      ...base(),
      type: "tool_call_requested",
      toolCall: { type: "tool_call", id, name: "read_file", arguments: args },
      repairs: [],
    });
    events.push({
      ...base(),
      type: "tool_call_completed",
      result: {
        role: "tool",
        toolCallId: id,
        toolName: "read_file",
        content: [{ type: "text", text: `1\texport const value${n} = ${n};\n`.repeat(20) }],
        isError: false,
      },
      durationMs: 3,
    });
  }
  events.push({
    ...base(),
    type: "run_completed",
    stopReason: "completed",
    finalText: "done",
    usage: { modelRequests: turns, toolCalls: turns, cancelledToolCalls: 0, toolRetries: {}, tokens: usage },
  });
  return events;
}

export async function appendLongSession(store: SessionStore, id: string, turns: number): Promise<number> {
  await store.createSession({ id, title: "A long walk" });
  const events = longRun(turns);
  for (let i = 0; i < events.length; i += 1_000) await store.append(id, events.slice(i, i + 1_000));
  return events.length;
}
