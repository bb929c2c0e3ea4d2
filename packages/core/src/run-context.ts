import { randomUUID } from "node:crypto";
import { EventQueue } from "./event-queue.js";
import { type EventBase, isTerminalEvent, type RunEvent, type RunEventBody } from "./events.js";
import type { Message } from "./messages.js";
import { type EventObserver, ObserverFanOut } from "./observers.js";
import { TranscriptProjection } from "./transcript.js";
import { addUsage, emptyUsage, type RunUsage, type Usage } from "./usage.js";

/**
 * Where a run's events are recorded as they happen (a session store, say): the run's record. Writes are
 * serialized in event order, and the run waits for them at its checkpoints: before a batch of tool calls
 * executes, and before the run reports its end. A write that fails ends the run with stop reason
 * "store_error". Watchers that must not end the run (tracing, a UI) are observers instead.
 */
export interface EventSink {
  write(event: RunEvent): void | Promise<void>;
  /**
   * Optional: record several events at once, in order. Events emitted together (a model turn's end and
   * its tool calls, say) then reach the sink in one call, so a store can write them in one append. When
   * absent, `write` is called for each.
   */
  writeBatch?(events: readonly RunEvent[]): void | Promise<void>;
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

/**
 * Where one run's events go. Each event, in sequence order, reaches: the transcript projection, the record
 * sink (its write is queued behind the earlier ones), each observer in the order given, then the stream's
 * iterator. A sink failure ends the run as "store_error"; an observer failure is reported once
 * (`observer_failed`) and never ends it.
 */
export interface RunOutlets {
  readonly sink?: EventSink | undefined;
  readonly observers?: readonly EventObserver[] | undefined;
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
  readonly #observers: ObserverFanOut | undefined;
  #recording: Promise<void> = Promise.resolve();
  #recordError: unknown;
  // Events delivered and not yet handed to the sink, and whether a drain is under way.
  readonly #unrecorded: RunEvent[] = [];
  #draining = false;
  #ended = false;
  readonly #outbox: RunEvent[] = [];
  #delivering = false;

  constructor(
    identity: RunIdentity,
    history: readonly Message[],
    outlets: RunOutlets = {},
    restore?: RunRestore,
  ) {
    this.#sink = outlets.sink;
    const observers = outlets.observers ?? [];
    this.#observers =
      observers.length > 0
        ? new ObserverFanOut(observers, (observer, message) => {
            // After the terminal event nothing more may be emitted: a late failure is not reported.
            if (!this.#ended) this.emit({ type: "observer_failed", observer, message });
          })
        : undefined;
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

  /**
   * Stamps an event and delivers it. An event emitted while another is being delivered (an observer or a
   * stream reader that queues a message from inside its callback) waits until that one has reached
   * everyone, so every outlet sees events in sequence order.
   */
  emit(body: RunEventBody): RunEvent {
    const event = { ...this.#base, seq: this.#seq++, time: Date.now(), ...body } as RunEvent;
    if (isTerminalEvent(event)) this.#ended = true;
    this.#outbox.push(event);
    if (this.#delivering) return event;
    this.#delivering = true;
    try {
      for (let next = this.#outbox.shift(); next; next = this.#outbox.shift()) this.#deliver(next);
    } finally {
      this.#delivering = false;
    }
    return event;
  }

  #deliver(event: RunEvent): void {
    this.transcript.apply(event);
    if (this.#sink) {
      this.#unrecorded.push(event);
      // One drain at a time, started a microtask later: every event emitted until then goes in its batch.
      if (!this.#draining) {
        this.#draining = true;
        this.#recording = this.#recording.then(() => this.#drain());
      }
    }
    this.#observers?.deliver(event);
    this.queue.push(event);
  }

  /** Records the waiting events, in batches, until none wait; the first failure stops recording. */
  async #drain(): Promise<void> {
    const sink = this.#sink as EventSink;
    try {
      while (this.#unrecorded.length > 0 && this.#recordError === undefined) {
        const batch = this.#unrecorded.splice(0);
        if (sink.writeBatch) await sink.writeBatch(batch);
        else for (const event of batch) await sink.write(event);
      }
    } catch (error) {
      this.#recordError ??= error ?? new Error("the event sink failed");
    } finally {
      this.#unrecorded.length = 0;
      this.#draining = false;
    }
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
