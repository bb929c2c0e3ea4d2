import type { ChildProcess } from "node:child_process";
import { isDeepStrictEqual } from "node:util";
import type { RunEvent, SessionStore } from "@bridle/core";
import { lineSplitter } from "@bridle/core/node";
import { numberedEvent } from "./events.js";

/**
 * The event a crash writer appends at sequence `seq`: a function of `seq` alone, so a checker knows what
 * every stored event must be. Every fifth is a large tool output (repeating every tenth), so blob
 * storage is crashed too.
 */
export function crashEvent(seq: number): RunEvent {
  if (seq % 5 !== 4) return numberedEvent(seq, "crash");
  return {
    runId: "crash",
    seq,
    time: 1_700_000_000_000 + seq,
    type: "tool_call_completed",
    result: {
      role: "tool",
      toolCallId: `call-${seq}`,
      toolName: "bash",
      content: [{ type: "text", text: `output variant ${seq % 10}\n${"x".repeat(20_000)}` }],
      isError: false,
    },
    durationMs: 1,
  };
}

/**
 * The child side of a crash test: appends batches of one to three `crashEvent`s forever, printing
 * `ready` once and `ack <lastSeq>` after each append resolves. Run it in a process that gets killed.
 */
export async function runCrashWriter(store: SessionStore, sessionId: string): Promise<never> {
  const info = (await store.get(sessionId)) ?? (await store.createSession({ id: sessionId }));
  let next = info.lastSeq + 1;
  process.stdout.write("ready\n");
  for (;;) {
    const batch = Array.from({ length: 1 + (next % 3) }, (_, i) => crashEvent(next + i));
    const { firstSeq, lastSeq } = await store.append(sessionId, batch);
    if (firstSeq !== next) throw new Error(`expected the batch at ${next}, the store put it at ${firstSeq}`);
    // Pipes are written synchronously on Linux: once this returns, the parent will read the ack.
    process.stdout.write(`ack ${lastSeq}\n`);
    next = lastSeq + 1;
  }
}

export interface CrashTrialsOptions {
  /** Starts a child process whose only stdout is `runCrashWriter`'s. */
  readonly spawn: () => ChildProcess;
  /** Opens the store in this process, to check it after each kill. */
  readonly open: () => Promise<SessionStore>;
  readonly sessionId: string;
  readonly trials?: number;
  /** The kill lands up to this long after the child is ready (default 40 ms). */
  readonly maxKillDelayMs?: number;
}

export interface CrashTrialsReport {
  readonly trials: number;
  /** Kills that landed before the child had opened the store (during startup or recovery). */
  readonly killedBeforeReady: number;
  /** The highest sequence number a child acknowledged. */
  readonly acknowledged: number;
  /** Events the store holds at the end. */
  readonly stored: number;
}

/**
 * Kills a writer with SIGKILL at random moments, `trials` times. After each kill the store must open,
 * read the session from the start without error, hold a gapless run of exactly the events the writer
 * meant to write, and include every append the writer saw acknowledged. Throws on the first violation.
 */
export async function runCrashTrials(options: CrashTrialsOptions): Promise<CrashTrialsReport> {
  const trials = options.trials ?? 100;
  const maxDelay = options.maxKillDelayMs ?? 40;
  let acknowledged = -1;
  let killedBeforeReady = 0;
  let stored = 0;
  for (let trial = 0; trial < trials; trial++) {
    const child = options.spawn();
    let ready = false;
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
    let seeReady = () => {};
    let seeAck = () => {};
    const readySeen = new Promise<void>((resolve) => {
      seeReady = resolve;
    });
    const ackSeen = new Promise<void>((resolve) => {
      seeAck = resolve;
    });
    const lines = lineSplitter((line) => {
      if (line === "ready") {
        ready = true;
        seeReady();
      } else if (line.startsWith("ack ")) {
        acknowledged = Math.max(acknowledged, Number(line.slice(4)));
        seeAck();
      }
      return "more";
    });
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => lines.push(chunk));
    child.on("close", () => {
      seeReady();
      seeAck();
    });
    // Most kills land mid-append; some land while the child is still opening and recovering the store; and
    // every fourth waits for an acknowledged append first, so acknowledged batches are exercised however
    // slow the machine is (on a loaded one, the delays alone can let every kill land before the first ack).
    if (trial % 7 === 3) await sleep(Math.random() * 30);
    else if (trial % 4 === 1) await ackSeen;
    else await readySeen;
    await sleep(Math.random() * maxDelay);
    if (!ready) killedBeforeReady++;
    child.kill("SIGKILL");
    await closed;
    if (child.signalCode !== "SIGKILL") {
      throw new Error(
        `trial ${trial}: the writer exited on its own (${String(child.exitCode)}): ${stderr.slice(-2000)}`,
      );
    }
    stored = await check(options, trial, acknowledged);
  }
  return { trials, killedBeforeReady, acknowledged, stored };
}

async function check(options: CrashTrialsOptions, trial: number, acknowledged: number): Promise<number> {
  const store = await options.open();
  try {
    const info = await store.get(options.sessionId);
    if (!info) {
      if (acknowledged >= 0) throw new Error(`trial ${trial}: the session is gone`);
      return 0;
    }
    let expected = 0;
    for await (const { sessionSeq, event } of store.read(options.sessionId)) {
      if (sessionSeq !== expected)
        throw new Error(`trial ${trial}: expected seq ${expected}, read ${sessionSeq}`);
      if (!isDeepStrictEqual(event, crashEvent(sessionSeq))) {
        throw new Error(`trial ${trial}: event ${sessionSeq} is not what was written`);
      }
      expected++;
    }
    if (expected - 1 < acknowledged) {
      throw new Error(
        `trial ${trial}: ${acknowledged} was acknowledged but the store holds up to ${expected - 1}`,
      );
    }
    if (info.lastSeq !== expected - 1) {
      throw new Error(
        `trial ${trial}: the session says lastSeq ${info.lastSeq}, reading found ${expected - 1}`,
      );
    }
    return expected;
  } finally {
    await store.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
