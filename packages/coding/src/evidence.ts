import { type RunEvent, textOf } from "@bridle/core";
import { type CheckEntry, checkEntries } from "./check-history.js";
import {
  type BaselineFact,
  type ChangesFact,
  type CommandFact,
  FACT,
  type HistoryFact,
  type NotesFact,
  type ReviewFlag,
} from "./facts.js";
import { redactSecrets } from "./secret-scan.js";

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
  /**
   * Each check's last run, through run_check or a shell command that ran it; `staleAfter` names the
   * files changed after that run.
   */
  readonly checks: readonly CheckEntry[];
  readonly flags: readonly ReviewFlag[];
  /** HEAD moved during the run: the agent's commits (newest first), or a reset when there are none. */
  readonly head?: HistoryFact["head"];
  /** Executable bits the agent changed (absent when none). */
  readonly modeChanges?: HistoryFact["modes"];
  /**
   * Files written where .gitignore hides them, with the secret scan's findings (never the values);
   * absent when none.
   */
  readonly ignoredWrites?: HistoryFact["ignored"];
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
  const checks = checkEntries(events);
  const history = factsOf<HistoryFact>(events, FACT.history).at(-1);
  const risks = notes.flatMap((note) => note.risks);
  if (history?.ignoredTruncated) {
    risks.push(
      "writes into git-ignored paths may be missing: there were more ignored files than are watched (20 000), or git could not list them",
    );
  }
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
    // A command line may carry a credential the agent wrote somewhere: the handoff never repeats it.
    commands: factsOf<CommandFact>(events, FACT.command).map(({ command, exitCode }) => ({
      command: redactSecrets(command),
      exitCode,
    })),
    checks,
    flags: changes.flags,
    ...(history?.head ? { head: history.head } : {}),
    ...(history && history.modes.length > 0 ? { modeChanges: history.modes } : {}),
    ...(history && history.ignored.length > 0 ? { ignoredWrites: history.ignored } : {}),
    assumptions: notes.flatMap((note) => note.assumptions),
    risks,
    followUps: notes.flatMap((note) => note.followUps),
  };
}

/**
 * Done, failed or unverified, and why. Done needs a completed run whose checks passed after the last
 * change and whose tests the agent did not weaken; a check that fails on the final code is a failure; a
 * check whose result predates a change proves nothing about that change.
 */
export function handoffOutcome(
  allEvents: readonly RunEvent[],
  options: { readonly runId?: string } = {},
): HandoffOutcome {
  const events = oneRun(allEvents, options.runId);
  const failure = failureOf(events);
  if (failure) return { status: "failed", reason: `the run stopped (${failure})` };
  const checks = checkEntries(events);
  const failed = checks.filter((check) => check.status === "failed" && !check.staleAfter);
  if (failed.length > 0)
    return { status: "failed", reason: `failing checks: ${failed.map((c) => c.kind).join(", ")}` };
  const stale = checks.filter((check) => check.staleAfter);
  if (stale.length > 0) {
    const what = stale.map(
      (c) => `the ${c.kind} check ${c.status} before changes to ${shortList(c.staleAfter ?? [])}`,
    );
    return { status: "unverified", reason: `stale: ${what.join("; ")}; not run again since` };
  }
  const changes = factsOf<ChangesFact>(events, FACT.changes).at(-1);
  const changed = (changes?.files.length ?? 0) > 0;
  if (changed && !checks.some((check) => check.status === "passed")) {
    return { status: "unverified", reason: "files changed but no check ran and passed" };
  }
  const weakened = [...new Set(changes?.flags.filter((flag) => flag.kind === "tests").map((f) => f.path))];
  if (weakened.length > 0) {
    return {
      status: "unverified",
      reason: `checks passed, but the agent weakened tests in ${shortList(weakened)}`,
    };
  }
  return { status: "done", reason: changed ? "checks passed" : "no files changed" };
}

function shortList(paths: readonly string[]): string {
  return paths.length <= 3
    ? paths.join(", ")
    : `${paths.slice(0, 3).join(", ")} and ${paths.length - 3} more`;
}

/** The exit status a front door gives a run with this handoff: 1 when it says FAILED, else 0. */
export function handoffExitCode(outcome: HandoffOutcome): 0 | 1 {
  return outcome.status === "failed" ? 1 : 0;
}

const LIST = 8;

function short(sha: string | null): string {
  return sha === null ? "(no commit)" : sha.slice(0, 10);
}

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
      .map(
        (c) =>
          `  ${c.kind}: ${c.command}${c.note ? ` (${c.note})` : ""}${c.staleAfter ? `; STALE: files changed after it: ${shortList(c.staleAfter)}` : ""}`,
      ),
  );
  const head = evidence.head;
  if (head && head.commitCount > 0) {
    lines.push(`commits by the agent: ${head.commitCount} (HEAD ${short(head.from)} → ${short(head.to)})`);
    lines.push(...listed(head.commits, (c) => `${c.sha.slice(0, 10)} ${c.subject}`));
  } else if (head)
    lines.push(
      `HEAD moved from ${short(head.from)} to ${short(head.to)} (no new commits: a reset or checkout)`,
    );
  const modes = evidence.modeChanges ?? [];
  if (modes.length > 0) {
    lines.push(`mode changes: ${modes.length}`);
    lines.push(...listed(modes, (m) => `${m.path} ${m.from} → ${m.to}`));
  }
  const ignored = evidence.ignoredWrites ?? [];
  if (ignored.length > 0) {
    lines.push(`writes into git-ignored paths: ${ignored.length}`);
    lines.push(
      ...listed(
        ignored,
        (w) =>
          `${w.path} (${w.change})${w.secrets.length > 0 ? `: A SECRET WAS WRITTEN HERE (${w.secrets.slice(0, 3).join(", ")})` : ""}`,
      ),
    );
  }
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
