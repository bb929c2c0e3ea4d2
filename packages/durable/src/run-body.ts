// One durable run, engine-neutral: build the agent, rebuild where the session stood before this run,
// and run the harness with every model request and tool call as a step. The engine calls this on the
// first execution and again on each recovery; everything outside steps must come out the same each time.
import {
  type AnyTool,
  BridleError,
  closeDanglingCalls,
  type EventObserver,
  Harness,
  projectTranscript,
  type RunEvent,
  type SessionStore,
  sessionSink,
} from "@bridle/core";
import { DurableApprovals, type OnWaiting } from "./durable-approver.js";
import type { DurableContext } from "./durable-context.js";
import { durableModel } from "./durable-model.js";
import { durableTool } from "./durable-tool.js";
import type { ComposeAgent, DurableRunOutcome, DurableRunRequest } from "./engine.js";
import type { ParkedRun } from "./parked.js";

export async function runDurableBody(
  context: DurableContext,
  request: DurableRunRequest,
  compose: ComposeAgent,
  onWaiting?: OnWaiting,
): Promise<DurableRunOutcome | ParkedRun> {
  const agent = await compose(request);
  try {
    const { store } = agent;
    await ensureSession(store, request.sessionId);
    const before = await storedState(store, request.sessionId, context.runId);
    const approvals = new DurableApprovals(context, {
      autoApprove: agent.autoApprove === true,
      autoApproveRepeats: agent.autoApproveRepeats === true,
      ...(onWaiting ? { onWaiting } : {}),
    });
    // The harness's own tool timeout is applied inside each call's step (durable-tool.ts).
    const defaultTimeoutMs = new Harness({ ...agent.harness, model: agent.model }).limits.toolTimeoutMs;
    const durable = (tool: AnyTool) =>
      durableTool(tool, context, {
        defaultTimeoutMs,
        askRepeat: approvals.askRepeat,
        completedBefore: before.completed,
      });
    const harness = new Harness({
      ...agent.harness,
      model: durableModel(agent.model, context),
      tools: agent.tools.map(durable),
      // Tools found later with the search tool are steps like the rest.
      ...(agent.harness?.deferredTools ? { deferredTools: agent.harness.deferredTools.map(durable) } : {}),
      approver: approvals.approver,
    });
    const sink = sessionSink(store, request.sessionId);
    // Once the run parks, the harness winds down (its signal is aborted): what it says then (the call
    // refused, the run aborted) is not what happened, so neither the session nor an observer sees it.
    // The continuation emits the run's events again from its steps, and goes on from the wait.
    const observers = agent.observers?.map(
      (observer): EventObserver => ({
        ...(observer.name === undefined ? {} : { name: observer.name }),
        write: (event) => (context.parked() ? undefined : observer.write(event)),
      }),
    );
    let result: Awaited<ReturnType<Harness["run"]>> | undefined;
    try {
      result = await harness.run({
        prompt: request.prompt,
        history: before.history,
        runId: context.runId,
        sessionId: request.sessionId,
        signal: context.signal,
        sink: {
          // Events an earlier execution stored are stored once: this execution emits them again, the same.
          write: (event: RunEvent) =>
            context.parked() || event.seq <= before.lastSeq ? undefined : sink.write(event),
        },
        ...(observers ? { observers } : {}),
      });
    } catch (error) {
      // Parking ends the harness however it ends; anything else is the run's failure.
      if (!context.parked() || context.refusal()) throw error;
    } finally {
      await sink.flush();
    }
    // Something the database returned was not what the run recorded: whatever the harness made of the
    // throw, the run ends failed with the refusal (nothing past it ran).
    const refusal = context.refusal();
    if (refusal) throw refusal;
    const parked = context.parked();
    if (parked) return parked;
    // A throw without parking was rethrown above.
    if (result === undefined) throw new Error("the harness ended without a result");
    return {
      sessionId: request.sessionId,
      stopReason: result.stopReason,
      finalText: result.finalText,
      ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    };
  } finally {
    await agent.close?.();
  }
}

async function ensureSession(store: SessionStore, sessionId: string): Promise<void> {
  if (await store.get(sessionId)) return;
  try {
    await store.createSession({ id: sessionId });
  } catch (error) {
    // Another execution of this run (or another run) created it in between.
    if (!(error instanceof BridleError && error.code === "store_conflict")) throw error;
  }
}

/**
 * The session's transcript before this run, the last event of this run already stored (-1: none), and
 * the calls of this run whose result is stored (a witness besides the checkpoints that they ran).
 */
async function storedState(
  store: SessionStore,
  sessionId: string,
  runId: string,
): Promise<{ history: ReturnType<typeof closeDanglingCalls>; lastSeq: number; completed: Set<string> }> {
  const earlier: RunEvent[] = [];
  const completed = new Set<string>();
  let lastSeq = -1;
  for await (const stored of store.read(sessionId)) {
    const { event } = stored;
    if (event.runId !== runId) earlier.push(event);
    else {
      lastSeq = Math.max(lastSeq, event.seq);
      if (event.type === "tool_call_completed") completed.add(event.result.toolCallId);
    }
  }
  return { history: closeDanglingCalls(projectTranscript(earlier)), lastSeq, completed };
}
