import { type RunEvent, textOf } from "@bridle/core";
import {
  type BaselineFact,
  CHECK_KINDS,
  type ChangesFact,
  type CheckFact,
  type CheckKind,
  type CheckStatus,
  type ChecksDetectedFact,
  type CommandFact,
  FACT,
  type NotesFact,
  type ReviewFlag,
} from "./facts.js";

/** The evidence handoff: what the run did, as its events recorded it (never as the model tells it). */
export interface Evidence {
  readonly task: string;
  /** Files the agent changed, with the lines it added and removed (on top of the user's own edits). */
  readonly filesChanged: readonly {
    readonly path: string;
    readonly added: number;
    readonly removed: number;
  }[];
  /** Files the user had changed before the run; the agent's accounting leaves them out. */
  readonly preexistingChanges: readonly string[];
  readonly commands: readonly { readonly command: string; readonly exitCode: number | null }[];
  readonly checks: readonly {
    readonly kind: CheckKind;
    readonly command: string;
    readonly status: CheckStatus;
    readonly note?: string;
  }[];
  readonly flags: readonly ReviewFlag[];
  readonly assumptions: readonly string[];
  readonly risks: readonly string[];
  readonly followUps: readonly string[];
}

/** How the run ended, for the summary's first line: done only with a completed run and no failed check. */
export interface HandoffOutcome {
  readonly status: "done" | "failed" | "unverified";
  readonly reason: string;
}

function factsOf<T>(events: readonly RunEvent[], kind: string): T[] {
  return events.flatMap((event) => (event.type === "fact" && event.kind === kind ? [event.data as T] : []));
}

/** The events of one run: the given run id, or the last run in the list. */
function oneRun(events: readonly RunEvent[], runId?: string): readonly RunEvent[] {
  const id = runId ?? [...events].reverse().find((event) => event.type === "run_started")?.runId;
  return id === undefined ? events : events.filter((event) => event.runId === id);
}

function taskOf(events: readonly RunEvent[]): string {
  const started = events.find((event) => event.type === "run_started");
  if (started?.type !== "run_started") return "";
  const first = started.messages.find((message) => message.role === "user");
  if (first?.role !== "user") return "";
  return typeof first.content === "string" ? first.content : textOf(first.content);
}

function checksOf(events: readonly RunEvent[]): Evidence["checks"] {
  const detected = factsOf<ChecksDetectedFact>(events, FACT.checksDetected).at(-1);
  const ran = factsOf<CheckFact>(events, FACT.check);
  return CHECK_KINDS.map((kind) => {
    const attempts = ran.filter((check) => check.kind === kind);
    const last = attempts.at(-1);
    if (last) {
      const failed = attempts.filter((check) => check.status === "failed").length;
      const history = attempts.length > 1 ? `${attempts.length} runs, ${failed} failed` : undefined;
      const note = [last.note, history].filter(Boolean).join("; ");
      return { kind, command: last.command, status: last.status, ...(note ? { note } : {}) };
    }
    const found = detected?.checks.find((check) => check.kind === kind);
    if (found)
      return { kind, command: found.command, status: "skipped", note: `detected (${found.source}), not run` };
    return { kind, command: "", status: "unavailable", note: `no ${kind} command found in the project` };
  });
}

/** The run's stop, when it was not a completion. */
function failureOf(events: readonly RunEvent[]): string | undefined {
  const end = events.findLast((event) => event.type === "run_completed" || event.type === "run_failed");
  if (end?.type === "run_failed") return `${end.stopReason}: ${end.error.message}`;
  if (!end) return "the run has not ended";
  return undefined;
}

/**
 * The evidence handoff of one run (the last in `events`, or `runId`'s), from its events alone: the
 * overlay's facts (baseline, changes and review flags, commands, checks, notes) and the run's own start
 * and end. A run that stopped on its repair budget says so among the risks.
 */
export function buildEvidence(
  allEvents: readonly RunEvent[],
  options: { readonly runId?: string } = {},
): Evidence {
  const events = oneRun(allEvents, options.runId);
  const baseline = factsOf<BaselineFact>(events, FACT.baseline).at(0);
  const changes = factsOf<ChangesFact>(events, FACT.changes).at(-1) ?? { files: [], flags: [] };
  const notes = factsOf<NotesFact>(events, FACT.notes);
  const checks = checksOf(events);
  const risks = notes.flatMap((note) => note.risks);
  const failure = failureOf(events);
  const failing = checks.filter((check) => check.status === "failed");
  if (failure?.startsWith("tool_retries_exceeded") && failing.length > 0) {
    risks.push(
      `unresolved: ${failing.map((c) => `the ${c.kind} check (${c.command})`).join(", ")} still failed when the repair attempts ran out; the run stopped`,
    );
  } else if (failure) risks.push(`the run did not complete (${failure})`);
  return {
    task: taskOf(events),
    filesChanged: changes.files.map(({ path, added, removed }) => ({ path, added, removed })),
    preexistingChanges: baseline?.preexisting.map((entry) => entry.path) ?? [],
    commands: factsOf<CommandFact>(events, FACT.command).map(({ command, exitCode }) => ({
      command,
      exitCode,
    })),
    checks,
    flags: changes.flags,
    assumptions: notes.flatMap((note) => note.assumptions),
    risks,
    followUps: notes.flatMap((note) => note.followUps),
  };
}

/** Done, failed or unverified, and why. */
export function handoffOutcome(
  allEvents: readonly RunEvent[],
  options: { readonly runId?: string } = {},
): HandoffOutcome {
  const events = oneRun(allEvents, options.runId);
  const failure = failureOf(events);
  if (failure) return { status: "failed", reason: `the run stopped (${failure})` };
  const checks = checksOf(events);
  const failed = checks.filter((check) => check.status === "failed");
  if (failed.length > 0)
    return { status: "failed", reason: `failing checks: ${failed.map((c) => c.kind).join(", ")}` };
  const changed = (factsOf<ChangesFact>(events, FACT.changes).at(-1)?.files.length ?? 0) > 0;
  if (changed && !checks.some((check) => check.status === "passed")) {
    return { status: "unverified", reason: "files changed but no check ran and passed" };
  }
  return { status: "done", reason: changed ? "checks passed" : "no files changed" };
}

const LIST = 8;

function listed<T>(items: readonly T[], show: (item: T) => string): string[] {
  const lines = items.slice(0, LIST).map((item) => `  ${show(item)}`);
  if (items.length > LIST) lines.push(`  … ${items.length - LIST} more`);
  return lines;
}

/** A short readable summary of the handoff, a dozen lines or so. */
export function formatHandoff(evidence: Evidence, outcome: HandoffOutcome): string {
  const lines = [`handoff: ${outcome.status.toUpperCase()} (${outcome.reason})`];
  const files = evidence.filesChanged;
  lines.push(`files changed by the agent: ${files.length}`);
  lines.push(...listed(files, (f) => `${f.path} +${f.added} -${f.removed}`));
  if (evidence.preexistingChanges.length > 0) {
    lines.push(`user's changes left alone: ${evidence.preexistingChanges.length}`);
    lines.push(...listed(evidence.preexistingChanges, (path) => path));
  }
  lines.push(`commands run: ${evidence.commands.length}`);
  lines.push(
    ...listed(
      evidence.commands,
      (c) => `${c.command.split("\n")[0]?.slice(0, 100)} → ${c.exitCode ?? "no exit"}`,
    ),
  );
  lines.push(
    `checks: ${evidence.checks.map((c) => `${c.kind} ${c.status}`).join(", ")}`,
    ...evidence.checks
      .filter((c) => c.status === "failed" || c.status === "passed")
      .map((c) => `  ${c.kind}: ${c.command}${c.note ? ` (${c.note})` : ""}`),
  );
  if (evidence.flags.length > 0) {
    lines.push(`review flags: ${evidence.flags.length}`);
    lines.push(...listed(evidence.flags, (f) => `${f.kind} ${f.path}: ${f.note}`));
  }
  for (const [title, items] of [
    ["assumptions", evidence.assumptions],
    ["risks", evidence.risks],
    ["follow-ups", evidence.followUps],
  ] as const) {
    if (items.length > 0) lines.push(`${title}:`, ...listed(items, (item) => item));
  }
  return lines.join("\n");
}
