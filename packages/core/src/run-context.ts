import { randomUUID } from "node:crypto";
import { EventQueue } from "./event-queue.js";
import type { EventBase, RunEvent, RunEventBody } from "./events.js";
import type { Message } from "./messages.js";
import { TranscriptProjection } from "./transcript.js";
import { addUsage, emptyUsage, type RunUsage, type Usage } from "./usage.js";

/**
 * Where a run's events are recorded as they happen (a session store, say). Writes are serialized in event
 * order, and the run waits for them at its checkpoints: before a batch of tool calls executes, and before
 * the run reports its end. A write that fails ends the run with stop reason "store_error".
 */
export interface EventSink {
  write(event: RunEvent): void | Promise<void>;
}

export interface RunIdentity {
  readonly runId?: string;
  readonly sessionId?: string;
  readonly parentRunId?: string;
  readonly parentToolCallId?: string;
  readonly agentName?: string;
}

/** Where a run that paused for approval left off: its counters and the next event sequence number. */
export interface RunRestore {
  readonly nextSeq: number;
  readonly usage: RunUsage;
  readonly warnings: readonly string[];
}

/** One run's mutable state: its counters, its transcript projection and the stream it emits into. */
export class RunContext {
  readonly runId: string;
  readonly controller = new AbortController();
  readonly queue: EventQueue<RunEvent>;
  readonly transcript: TranscriptProjection;
  readonly historyLength: number;
  readonly emittedWarnings = new Set<string>();
  readonly toolRetries: Record<string, number> = {};
  modelRequests = 0;
  toolCalls = 0;
  cancelledToolCalls = 0;
  outputRetries = 0;
  tokens: Usage = emptyUsage;
  readonly #base: Omit<EventBase, "seq" | "time">;
  #seq = 0;
  readonly #sink: EventSink | undefined;
  #recording: Promise<void> = Promise.resolve();
  #recordError: unknown;

  constructor(identity: RunIdentity, history: readonly Message[], sink?: EventSink, restore?: RunRestore) {
    this.#sink = sink;
    this.runId = identity.runId ?? randomUUID();
    this.queue = new EventQueue(() => this.controller.abort(new Error("the event stream was closed")));
    this.transcript = new TranscriptProjection(history);
    this.historyLength = history.length;
    if (restore) {
      // The paused part of the run was already counted; the resumed stream goes on from there.
      this.#seq = restore.nextSeq;
      this.modelRequests = restore.usage.modelRequests;
      this.toolCalls = restore.usage.toolCalls;
      this.cancelledToolCalls = restore.usage.cancelledToolCalls;
      this.outputRetries = restore.usage.outputRetries ?? 0;
      Object.assign(this.toolRetries, restore.usage.toolRetries);
      this.tokens = restore.usage.tokens;
      for (const warning of restore.warnings) this.emittedWarnings.add(warning);
    }
    const base: { -readonly [K in keyof Omit<EventBase, "seq" | "time">]?: string } = { runId: this.runId };
    if (identity.sessionId) base.sessionId = identity.sessionId;
    if (identity.parentRunId) base.parentRunId = identity.parentRunId;
    if (identity.parentToolCallId) base.parentToolCallId = identity.parentToolCallId;
    if (identity.agentName) base.agentName = identity.agentName;
    this.#base = base as Omit<EventBase, "seq" | "time">;
  }

  /** Who runs: the identity fields every event carries, without the run id. */
  get identity(): Omit<RunIdentity, "runId"> {
    const { runId: _, ...rest } = this.#base;
    return rest;
  }

  /** The `seq` the next event will get. */
  get nextSeq(): number {
    return this.#seq;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  emit(body: RunEventBody): RunEvent {
    const event = { ...this.#base, seq: this.#seq++, time: Date.now(), ...body } as RunEvent;
    this.transcript.apply(event);
    const sink = this.#sink;
    if (sink) {
      this.#recording = this.#recording.then(async () => {
        if (this.#recordError === undefined) await sink.write(event);
      });
      this.#recording.catch((error: unknown) => {
        this.#recordError ??= error ?? new Error("the event sink failed");
      });
    }
    this.queue.push(event);
    return event;
  }

  /** Waits until every event emitted so far is recorded; returns the sink's error if one failed. */
  async recorded(): Promise<unknown> {
    await this.#recording.catch(() => {});
    return this.#recordError;
  }

  addTokens(usage: Usage): void {
    this.tokens = addUsage(this.tokens, usage);
  }

  usage(): RunUsage {
    return {
      modelRequests: this.modelRequests,
      toolCalls: this.toolCalls,
      cancelledToolCalls: this.cancelledToolCalls,
      toolRetries: { ...this.toolRetries },
      ...(this.outputRetries > 0 ? { outputRetries: this.outputRetries } : {}),
      tokens: this.tokens,
    };
  }
}
