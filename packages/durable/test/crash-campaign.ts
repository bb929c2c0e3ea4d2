// Workers SIGKILLed again and again, at points chosen by a seeded random sequence: anywhere, mid-bash (a
// tool that cannot tell whether it ran), right after an effect lands, mid model stream, while a run waits
// for a person, and five in a row (each killing the worker that was recovering). A scripted person answers
// approvals (yes) and repeat asks (yes unless the effect is in the log: what a careful person checks).
// Each batch has a run per effect tool and one that spawns a subagent whose calls cannot tell.
// Used by test/crash-campaign.test.ts (a small fixed-seed sample) and bench/crash.bench.ts (100 kills).
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Message, RunEvent } from "@bridle/core";
import { DbosRunQueue, type DurableRunInfo } from "../src/index.js";
import { databaseUrl, freshSchema } from "./database.js";
import { diagnosis } from "./diagnosis.js";
import { readEffects } from "./fixtures/effect-tools.js";
import type { ScriptedProvider } from "./fixtures/scripted-provider.js";
import { comparable, runEnded, sessionEvents } from "./sessions.js";
import { WorkerProcess } from "./workers.js";

export type KillPoint = "anywhere" | "mid-bash" | "after-effect" | "mid-model" | "mid-approval" | "in-a-row";
const POINTS: readonly KillPoint[] = [
  "anywhere",
  "mid-bash",
  "after-effect",
  "mid-model",
  "mid-approval",
  "in-a-row",
];
const TOOLS = ["side_effect", "blind_effect", "guarded_effect", "agent_spawn"] as const;
const CALLS = 4;

/** The prompt of a run of `tool`: four calls of it, or one spawn of a subagent making four blind calls. */
function campaignPrompt(tool: (typeof TOOLS)[number], tag: string): string {
  return tool === "agent_spawn"
    ? `calls=1 tag=${tag} tool=agent_spawn child=${CALLS} childtool=blind_effect`
    : `calls=${CALLS} tag=${tag} tool=${tool}`;
}

/** The tag of the uninterrupted run each campaign run's session is compared with. */
const referenceTag = (tool: (typeof TOOLS)[number]) => `ref${tool[0]}`;

/** `text` with a run's own tag written as `<tag>` (its call ids, keys and prompt name it). */
const untagged = (text: string, tag: string) =>
  text.replace(new RegExp(`(?<![A-Za-z0-9])${tag}(?![0-9])`, "g"), "<tag>");

/** The calls of a session that were repeated after a crash (each has its note), by untagged id. */
function repeatedCalls(events: readonly RunEvent[], tag: string): Set<string> {
  return new Set(
    events.flatMap((event) =>
      event.type === "tool_progress" &&
      (event.data as { durable?: unknown } | undefined)?.durable === "repeat"
        ? [untagged(event.toolCallId, tag)]
        : [],
    ),
  );
}

/**
 * A session's conversation as compared with an uninterrupted run's, untagged, with the results of the
 * calls `repeated` (in the crashed run) left out on both sides: a person may have declined such a repeat
 * (a Denied "not run again"), which an uninterrupted run never asks.
 */
function conversation(events: readonly RunEvent[], tag: string, repeated: ReadonlySet<string>): string {
  const messages = comparable(events).map((message: Message) =>
    message.role === "tool" && repeated.has(untagged(message.toolCallId, tag))
      ? { role: message.role, toolCallId: message.toolCallId, toolName: message.toolName }
      : message,
  );
  // A spawn's report names its task (from the child's run id) and how long it took; its details the run.
  const text = JSON.stringify(messages, (key, value) => (key === "details" ? undefined : value))
    .replace(/\\"task_id\\": \\"\w+\\"/g, "<task>")
    .replace(/\\"elapsed_ms\\": \d+/g, "<elapsed>");
  return untagged(text, tag);
}

export interface CampaignResult {
  readonly kills: number;
  readonly byPoint: Readonly<Record<KillPoint, number>>;
  readonly runs: number;
  /** Runs not finished with stop reason "completed" at the end. */
  readonly unfinished: number;
  /** Calls whose effect was applied more than once. */
  readonly appliedTwice: number;
  /** Calls whose effect never landed, or whose result is missing from the session. */
  readonly lost: number;
  /** Sessions whose conversation differs from an uninterrupted run's of the same tool (repeats aside). */
  readonly sessionsDiffering: number;
  /** Attempts after the first, and repeat asks the person answered. */
  readonly repeats: number;
  readonly personAnswers: number;
  readonly problems: readonly string[];
}

/** A small deterministic generator (mulberry32): the same seed, the same campaign. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Waits until `check` holds or `ms` passes (a kill point not reached in time becomes "anywhere"). */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(20);
  }
  return false;
}

export async function crashCampaign(options: {
  readonly bundle: string;
  readonly provider: ScriptedProvider;
  readonly dir: string;
  readonly kills: number;
  readonly seed: number;
  /** The provider's answer time, to aim kills inside a model stream. */
  readonly latencyMs: number;
}): Promise<CampaignResult> {
  const { provider, kills } = options;
  const next = random(options.seed);
  const schema = freshSchema("campaign");
  const logFile = join(options.dir, `${schema}.log`);
  const args = { databaseUrl, schema, providerUrl: provider.baseUrl, logFile, concurrency: 2 };
  const queue = await DbosRunQueue.open({ databaseUrl, schema });
  const workers: WorkerProcess[] = [];
  const runs = new Map<
    string,
    { readonly tool: (typeof TOOLS)[number]; readonly session: string; readonly tag: string }
  >();
  const byPoint = Object.fromEntries(POINTS.map((point) => [point, 0])) as Record<KillPoint, number>;
  let batches = 0;
  let personAnswers = 0;
  const ended = new Set<string>();
  /** Uninterrupted runs, one per tool, enqueued once the campaign's runs are done. */
  const references = new Map<(typeof TOOLS)[number], string>();

  const enqueueBatch = async () => {
    const batch = batches++;
    for (const tool of TOOLS) {
      const tag = `${tool[0]}${batch}`;
      const id = await queue.enqueue({ prompt: campaignPrompt(tool, tag), sessionId: `s-${tag}` });
      runs.set(id, { tool, session: `s-${tag}`, tag });
    }
  };
  const unfinished = async () => {
    let count = 0;
    for (const id of runs.keys()) {
      if (ended.has(id)) continue;
      const info = await queue.get(id);
      if (info && (info.status === "running" || info.status === "queued")) count++;
      else ended.add(id);
    }
    return count;
  };

  // The person: approves what needs approval, and allows a repeat only when its effect is not there.
  let stopped = false;
  const person = (async () => {
    while (!stopped) {
      for (const id of [...runs.keys(), ...references.values()]) {
        if (ended.has(id)) continue;
        const pending = await queue.pendingApprovals(id).catch(() => []);
        for (const item of pending) {
          // Each call's key is its own (a subagent's calls included, asked as "<spawn>/<call>").
          const key = (item.args as { key?: unknown } | null)?.key;
          const landed = readEffects(logFile).some((line) => line.event === "applied" && line.key === key);
          const approved = item.kind === "approval" || !landed;
          await queue
            .decide(id, item.toolCallId, { approved, ...(approved ? {} : { reason: "its effect is there" }) })
            .then(
              () => personAnswers++,
              () => {},
            );
        }
      }
      await sleep(40);
    }
  })();

  const problems: string[] = [];
  try {
    let inARow = 0;
    let cycle = 0;
    for (let kill = 0; kill < kills; kill++) {
      if ((await unfinished()) < 2) await enqueueBatch();
      const effectsBefore = readEffects(logFile);
      const requestsBefore = provider.requests;
      const worker = await WorkerProcess.start(options.bundle, args);
      workers.push(worker);
      // The points in turn (each is reached in any campaign of 10 kills or more); when within each, random.
      let point: KillPoint = inARow > 0 ? "in-a-row" : (POINTS[cycle++ % POINTS.length] ?? "anywhere");
      if (point === "in-a-row" && inARow === 0) inARow = 5;
      const waitsBefore = worker.stderr.split("waits for a person").length;
      let reached = true;
      switch (point) {
        case "anywhere":
          await sleep(next() * 800);
          break;
        case "in-a-row":
          // Soon after start: the process killed is the one recovering what the last one left.
          await sleep(next() * 1_500);
          inARow--;
          break;
        case "mid-bash":
          reached = await until(
            () =>
              readEffects(logFile).length > effectsBefore.length &&
              readEffects(logFile)
                .slice(effectsBefore.length)
                .some((line) => line.event === "attempt" && line.key.startsWith("b")),
            10_000,
          );
          await sleep(next() * 300);
          break;
        case "after-effect":
          reached = await until(
            () =>
              readEffects(logFile)
                .slice(effectsBefore.length)
                .some((line) => line.event === "applied"),
            10_000,
          );
          break;
        case "mid-model":
          reached = await until(() => provider.requests > requestsBefore, 10_000);
          await sleep(next() * options.latencyMs * 0.8);
          break;
        case "mid-approval":
          reached = await until(() => worker.stderr.split("waits for a person").length > waitsBefore, 10_000);
          await sleep(next() * 150);
          break;
      }
      if (!reached) point = "anywhere";
      byPoint[point]++;
      await worker.kill();
    }
    // One worker that is left alone finishes everything.
    const last = await WorkerProcess.start(options.bundle, args);
    workers.push(last);
    const infos: DurableRunInfo[] = [];
    for (const id of runs.keys()) infos.push(await runEnded(queue, id, 300_000));
    // The same runs never interrupted, on the worker left alone, for their sessions.
    for (const tool of TOOLS) {
      const tag = referenceTag(tool);
      references.set(tool, await queue.enqueue({ prompt: campaignPrompt(tool, tag), sessionId: `s-${tag}` }));
    }
    for (const id of references.values()) await runEnded(queue, id, 300_000);
    stopped = true;
    await person;
    await last.stop();

    const effects = readEffects(logFile);
    let appliedTwice = 0;
    let lost = 0;
    let repeats = 0;
    let sessionsDiffering = 0;
    for (const info of infos) {
      const run = runs.get(info.runId);
      if (info.status !== "finished" || info.outcome?.stopReason !== "completed") {
        problems.push(
          `run ${info.runId} (${run?.tool}) ended ${info.status} ${info.outcome?.stopReason ?? info.error ?? ""}`,
        );
      }
      // A run's effects by key (its tag's, or its subagent's "<tag>-child-k": the child has a run id of its own).
      const mine = effects.filter((line) => run && line.key.startsWith(`${run.tag}-`));
      const keys = new Set(mine.map((line) => line.key));
      for (const key of keys) {
        const applied = mine.filter((line) => line.key === key && line.event === "applied").length;
        if (applied > 1) {
          appliedTwice++;
          problems.push(`call ${key} of run ${info.runId} (${run?.tool}) applied ${applied} times`);
        }
        repeats += mine.filter((line) => line.key === key && line.event === "attempt").length - 1;
      }
      const applied = new Set(mine.filter((line) => line.event === "applied").map((line) => line.key));
      const events: RunEvent[] = run ? await sessionEvents(schema, run.session) : [];
      const results = events.filter((event) => event.type === "tool_call_completed").length;
      // A subagent's run has one result of its own (the spawn's), carrying the child's four calls.
      const expectedResults = run?.tool === "agent_spawn" ? 1 : CALLS;
      if (applied.size !== CALLS || results !== expectedResults) {
        lost += Math.max(CALLS - applied.size, expectedResults - results);
        problems.push(
          `run ${info.runId} (${run?.tool}): ${applied.size} effects of ${CALLS}, ${results} results of ${expectedResults}`,
        );
      }
      if (events.some((event, index) => event.seq !== index)) {
        problems.push(`session ${run?.session}: events not stored once each, in order`);
      }
      if (run) {
        const reference = await sessionEvents(schema, `s-${referenceTag(run.tool)}`);
        const repeated = repeatedCalls(events, run.tag);
        const got = conversation(events, run.tag, repeated);
        const expected = conversation(reference, referenceTag(run.tool), repeated);
        if (got !== expected) {
          sessionsDiffering++;
          problems.push(
            `session ${run.session} differs from an uninterrupted run's:\n  ${got}\n  ${expected}`,
          );
        }
      }
    }
    const result: CampaignResult = {
      kills,
      byPoint,
      runs: infos.length,
      unfinished: infos.filter(
        (info) => info.status !== "finished" || info.outcome?.stopReason !== "completed",
      ).length,
      appliedTwice,
      lost,
      sessionsDiffering,
      repeats,
      personAnswers,
      problems,
    };
    if (problems.length > 0) {
      problems.push(await diagnosis(schema, [...runs.keys()], logFile, workers.slice(-3)));
    }
    return result;
  } finally {
    stopped = true;
    await person.catch(() => {});
    await Promise.all(
      workers
        .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
        .map((worker) => worker.kill()),
    );
    await queue.close();
  }
}
