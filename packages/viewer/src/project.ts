// A session's stored events into the page's view: one pass, in sequence order. Deltas are skipped (the
// complete turn follows them); everything the page shows folded is moved into `bodies`.
import {
  type Message,
  type RunEvent,
  type SessionInfo,
  type StoredEvent,
  subagentEventOf,
  type Usage,
} from "@bridle/core";
import { commandFailure } from "./command-result.js";
import { editOf, resultPath } from "./edits.js";
import { factFailed, factLines, factText } from "./facts.js";
import { ShownLines } from "./hashline-edits.js";
import type { BranchView, RowView, SessionView, SetupView, SpanView, TurnView, UsageView } from "./view.js";

/** Options the exporter and the server share. */
export interface ProjectionOptions {
  /** US dollars for one turn of `model`; undefined when its price is unknown (the page then shows none). */
  readonly cost?: (model: string, usage: Usage) => number | undefined;
  /** The coding overlay's handoff summary from the session's events; undefined when it has none. */
  readonly handoff?: (events: readonly RunEvent[]) => string | undefined;
}

export interface Projection {
  readonly view: SessionView;
  readonly bodies: readonly string[];
}

const SHORT = 240;
const ROW_TEXT = 2_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function oneLine(text: string, max = SHORT): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

function textOfMessage(message: Message): string {
  if (message.role === "system") return message.content;
  const parts: string[] = [];
  for (const part of message.content) {
    if (part.type === "text") parts.push(part.text);
    else if (part.type === "image") parts.push(`[image ${part.mediaType}]`);
  }
  return parts.join("\n");
}

function usageView(usage: Usage): UsageView {
  return {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cacheRead: usage.cacheReadTokens,
    reasoning: usage.reasoningTokens,
  };
}

function addUsage(a: UsageView, b: UsageView): UsageView {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    reasoning: a.reasoning + b.reasoning,
  };
}

/** A short rendering of a call's arguments for its folded row: the path or command first when present. */
function argsSummary(raw: string): string {
  try {
    const args = JSON.parse(raw) as unknown;
    if (args !== null && typeof args === "object" && !Array.isArray(args)) {
      const a = args as Record<string, unknown>;
      for (const key of ["command", "path", "file_path", "pattern", "url", "query"]) {
        if (typeof a[key] === "string") return oneLine(a[key] as string);
      }
    }
  } catch {
    // A free-form tool's raw text (a patch) is summarised as it is.
  }
  return oneLine(raw);
}

/** Projects stored events (in sequence order) into the page's view. */
export function projectSession(
  info: SessionInfo,
  stored: readonly StoredEvent[],
  branches: readonly BranchView[],
  options: ProjectionOptions = {},
): Projection {
  const bodies: string[] = [];
  const body = (text: string): number => bodies.push(text) - 1;
  const rows: RowView[] = [];
  const turns: TurnView[] = [];
  const spans: SpanView[] = [];
  const setups: SetupView[] = [];
  const userRow = (base: { seq: number; time: number; turn: number }, text: string): RowView => ({
    ...base,
    kind: "user",
    text: clip(text, ROW_TEXT),
    ...(text.length > ROW_TEXT ? { body: body(text) } : {}),
  });
  const calls = new Map<string, { row: number; start: number; turn: number }>();
  const shown = new ShownLines();
  let turn = 0;
  // Shown numbers: the session's own turns in one count, each subagent run's turns in its own.
  let ownTurns = 0;
  const runTurns = new Map<string, number>();
  const agentOf = new Map<string, string>();
  let runs = 0;
  let toolCalls = 0;
  let failedCalls = 0;
  let usage: UsageView = { input: 0, output: 0, cacheRead: 0, reasoning: 0 };
  let cost: number | undefined = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  const events: RunEvent[] = [];
  /** Runs started and not yet ended: a run paused for approval ends (run_failed) and resumes anew. */
  const open = new Set<string>();

  // A subagent's run is one level deeper than the run whose call started it.
  const depths = new Map<string, number>();
  const depthOf = (event: RunEvent): number => {
    const known = depths.get(event.runId);
    if (known !== undefined) return known;
    const depth = event.parentRunId ? (depths.get(event.parentRunId) ?? 0) + 1 : 0;
    depths.set(event.runId, depth);
    return depth;
  };

  for (const { sessionSeq: seq, event, damage } of withCarriedRuns(stored)) {
    events.push(event);
    if (event.time > 0) {
      first = Math.min(first, event.time);
      last = Math.max(last, event.time);
    }
    const depth = depthOf(event);
    const base = { seq, time: event.time, turn, ...(depth > 0 ? { depth } : {}) };
    if (damage) rows.push({ ...base, kind: "damage", text: `entry ${seq}: ${damage.message}` });
    switch (event.type) {
      case "run_started": {
        runs++;
        open.add(event.runId);
        if (event.agentName) agentOf.set(event.runId, event.agentName);
        const who = event.agentName ? `${event.agentName}: ` : "";
        const resumed = event.resumed ? " (resumed after approval)" : "";
        rows.push({
          ...base,
          kind: "run",
          text: `${who}run started · ${event.provider} ${event.model}${resumed}`,
        });
        for (const message of event.messages) {
          if (message.role === "user") rows.push(userRow(base, textOfMessage(message)));
        }
        break;
      }
      case "model_request":
        if (event.setup) {
          setups.push({
            seq,
            turn: turn + 1,
            ...(event.agentName ? { agent: event.agentName } : {}),
            ...(depth > 0 ? { depth } : {}),
            system: body(event.setup.system),
            tools: event.setup.tools.map((tool) => ({
              name: tool.name,
              description: body(tool.description),
              schema: body(JSON.stringify(tool.inputSchema, null, 2)),
            })),
          });
        }
        break;
      case "model_response": {
        turn++;
        let label: string;
        if (depth === 0) label = `Turn ${++ownTurns}`;
        else {
          const within = (runTurns.get(event.runId) ?? 0) + 1;
          runTurns.set(event.runId, within);
          label = `${agentOf.get(event.runId) ?? "subagent"} turn ${within}`;
        }
        const u = usageView(event.usage);
        const model = event.message.model ?? "";
        const turnCost = options.cost?.(model, event.usage);
        if (turnCost === undefined) cost = undefined;
        else if (cost !== undefined) cost += turnCost;
        usage = addUsage(usage, u);
        const callsInTurn = event.message.content.filter((part) => part.type === "tool_call").length;
        turns.push({
          n: turn,
          label,
          runId: event.runId,
          model,
          start: event.time - event.durationMs,
          durationMs: event.durationMs,
          usage: u,
          ...(turnCost === undefined ? {} : { cost: turnCost }),
          stop: event.stopReason,
          toolCalls: callsInTurn,
        });
        spans.push({
          kind: "model",
          label: `${label.toLowerCase()} · ${model}`,
          turn,
          start: event.time - event.durationMs,
          durationMs: event.durationMs,
        });
        rows.push({ ...base, turn, kind: "turn", n: turn, label });
        for (const part of event.message.content) {
          if (part.type === "reasoning") {
            const text = part.redacted ? "[redacted reasoning]" : part.text;
            if (text)
              rows.push({
                ...base,
                turn,
                kind: "reasoning",
                preview: oneLine(text, 120),
                body: body(text),
              });
          } else if (part.type === "text" && part.text.trim()) {
            rows.push({
              ...base,
              turn,
              kind: "assistant",
              text: clip(part.text, ROW_TEXT),
              ...(part.text.length > ROW_TEXT ? { body: body(part.text) } : {}),
            });
          }
        }
        break;
      }
      case "tool_call_requested": {
        toolCalls++;
        const call = event.toolCall;
        calls.set(callKey(event.runId, call.id, depth), { row: rows.length, start: event.time, turn });
        rows.push({
          ...base,
          kind: "call",
          id: call.id,
          name: call.name,
          summary: argsSummary(call.arguments),
          args: body(call.arguments),
          status: "pending",
        });
        break;
      }
      case "tool_call_completed": {
        const result = event.result;
        const found = calls.get(callKey(event.runId, result.toolCallId, depth));
        const text = textOfMessage(result);
        const ranAndFailed = result.isError ? undefined : commandFailure(text);
        if (result.isError || ranAndFailed) failedCalls++;
        const start = found?.start ?? event.time - event.durationMs;
        spans.push({
          kind: "tool",
          label: result.toolName,
          callId: result.toolCallId,
          turn: found?.turn ?? turn,
          start,
          durationMs: event.durationMs,
          ...(result.isError || ranAndFailed ? { failed: true } : {}),
        });
        const row = found ? rows[found.row] : undefined;
        if (found && row?.kind === "call") {
          const args = bodies[row.args] ?? "";
          const edit = editOf(args, result.details, shown);
          // After the edit is drawn: its result's fresh lines are what the next edit's tags name.
          if (!result.isError) shown.saw(resultPath(args, result.details), text);
          const refused = result.errorKind === "Denied" || result.errorKind === "ApprovalRejected";
          rows[found.row] = {
            ...row,
            result: body(text),
            status: result.isError ? "error" : ranAndFailed ? "failed" : "ok",
            ...(result.errorKind ? { errorKind: result.errorKind } : {}),
            ...(ranAndFailed ? { errorKind: ranAndFailed } : {}),
            ...(refused ? { decision: oneLine(text.split("\n")[0] ?? "") } : {}),
            durationMs: event.durationMs,
            ...(edit ? { edit: body(JSON.stringify(edit)) } : {}),
          };
        } else {
          // A result whose call is not in this session's events (history trimmed by a fork): shown alone.
          rows.push({ ...base, kind: "notice", text: `result of ${result.toolName}`, body: body(text) });
        }
        break;
      }
      case "approval_requested":
        rows.push({
          ...base,
          kind: "approval",
          name: event.toolCall.name,
          summary: argsSummary(event.toolCall.arguments),
        });
        break;
      case "approval_resolved": {
        const index = rows.findLastIndex((r) => r.kind === "approval" && r.decision === undefined);
        const decision = event.decision.approved ? "approved" : "rejected";
        const row = rows[index];
        if (row?.kind === "approval") {
          rows[index] = {
            ...row,
            decision,
            ...(event.decision.reason ? { reason: event.decision.reason } : {}),
          };
        } else {
          rows.push({ ...base, kind: "approval", name: event.toolCallId, summary: "", decision });
        }
        break;
      }
      case "hook_failed":
        rows.push({
          ...base,
          kind: "hook",
          text: `hook ${event.hookName ?? event.hook} failed: ${event.message}`,
        });
        break;
      case "limit_warning":
        rows.push({ ...base, kind: "notice", text: `limit: ${event.used}/${event.max} ${event.limit}` });
        break;
      case "compaction":
        rows.push({
          ...base,
          kind: "notice",
          text: `compaction: ${event.replacedCount} messages summarised${event.reason ? ` (${event.reason})` : ""}`,
          body: body(textOfMessage(event.summary)),
        });
        break;
      case "output_retry":
        rows.push({
          ...base,
          kind: "notice",
          text: `output retry ${event.attempt}: ${oneLine(event.problems.join("; "))}`,
        });
        break;
      case "user_message_delivered":
        rows.push(userRow(base, textOfMessage(event.message)));
        break;
      case "model_warning":
        // An unknown model or price, or a setting the adapter dropped: why a run's cost or behaviour is off.
        rows.push({
          ...base,
          kind: "notice",
          text: `model warning (${event.code}): ${oneLine(event.message)}`,
        });
        break;
      case "model_retry":
        // Why a turn took long: the provider failed an attempt and was asked again after a wait.
        rows.push({
          ...base,
          kind: "notice",
          text: `provider retry ${event.attempt}/${event.maxAttempts} after ${event.delayMs} ms: ${event.error.code}${event.error.status === undefined ? "" : ` ${event.error.status}`}: ${oneLine(event.error.message)}`,
        });
        break;
      case "observer_failed":
        rows.push({
          ...base,
          kind: "notice",
          text: `observer ${event.observer} failed: ${oneLine(event.message)}`,
        });
        break;
      case "fact":
        rows.push({
          ...base,
          kind: "fact",
          factKind: event.kind,
          text: factText(event.kind, event.data),
          body: body(factLines(event.data)),
          ...(factFailed(event.kind, event.data) ? { failed: true as const } : {}),
        });
        break;
      case "run_completed":
        open.delete(event.runId);
        rows.push({
          ...base,
          kind: "end",
          ok: true,
          text: `run completed · ${plural(event.usage.modelRequests, "model request")}, ${plural(event.usage.toolCalls, "tool call")}`,
        });
        break;
      case "run_failed":
        open.delete(event.runId);
        rows.push({
          ...base,
          kind: "end",
          ok: false,
          text: `run stopped: ${event.stopReason}: ${oneLine(event.error.message)}`,
        });
        break;
      case "store_damage":
        if (!damage) rows.push({ ...base, kind: "damage", text: event.message });
        break;
      default:
        // Deltas, progress and queue notices: the complete records above already carry what they show.
        break;
    }
  }

  markBranches(rows, info, branches);
  const handoff = options.handoff?.(events);
  const view: SessionView = {
    session: {
      id: info.id,
      ...(info.title ? { title: info.title } : {}),
      createdAt: info.createdAt,
      updatedAt: info.updatedAt,
      lastSeq: info.lastSeq,
      ...(info.parent ? { parent: info.parent } : {}),
    },
    branches,
    summary: {
      events: stored.length,
      runs,
      turns: turns.length,
      toolCalls,
      failedCalls,
      usage,
      ...(cost === undefined || turns.length === 0 ? {} : { cost }),
      durationMs: Number.isFinite(first) ? last - first : 0,
      ...(open.size > 0 ? { running: true as const } : {}),
    },
    turns,
    spans,
    rows,
    setups,
    ...(handoff ? { handoff } : {}),
  };
  return { view, bodies };
}

/**
 * Where the session's tree branches, drawn in the transcript: after the event each fork was made at, and,
 * for a fork, after the last event it shares with its parent.
 */
function markBranches(rows: RowView[], info: SessionInfo, branches: readonly BranchView[]): void {
  const marks: { seq: number; text: string }[] = branches.map((b) => ({
    seq: b.seq,
    text: `branch ${b.id}${b.title ? ` “${b.title}”` : ""} forks here`,
  }));
  if (info.parent) {
    marks.push({
      seq: info.parent.seq,
      text: `forked from ${info.parent.sessionId} here: the events above are its history, those below this session's own`,
    });
  }
  for (const mark of marks.sort((a, b) => b.seq - a.seq)) {
    const after = rows.findLastIndex((row) => row.seq <= mark.seq);
    const at = rows[after];
    const row: RowView = {
      seq: mark.seq,
      time: at?.time ?? 0,
      turn: at?.turn ?? 0,
      kind: "branch",
      text: mark.text,
    };
    rows.splice(after + 1, 0, row);
  }
}

/**
 * The stored events with each subagent's run in place: a child's events are stored inside the progress of
 * the call that started it (core's `subagentEventOf`, at any depth), and are shown as rows of their own,
 * one level deeper, at the entry that carried them.
 */
function* withCarriedRuns(stored: readonly StoredEvent[]): Generator<StoredEvent> {
  for (const entry of stored) {
    yield entry;
    for (let child = subagentEventOf(entry.event); child; child = subagentEventOf(child)) {
      yield { sessionSeq: entry.sessionSeq, event: child };
    }
  }
}

/**
 * A call's key: its id in the session's own runs (a run resumed after an approval is a new run finishing
 * the same call), prefixed by its run in a subagent's, whose ids the model may repeat from the parent's.
 */
function callKey(runId: string, id: string, depth: number): string {
  return depth > 0 ? `${runId}:${id}` : id;
}
