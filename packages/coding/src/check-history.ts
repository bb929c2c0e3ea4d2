import type { RunEvent } from "@bridle/core";
import { checkRunBy, type MatchedCheck, matchCheck } from "./check-match.js";
import {
  CHECK_KINDS,
  type ChangedFile,
  type ChangesFact,
  type CheckFact,
  type CheckKind,
  type CheckStatus,
  type ChecksDetectedFact,
  type CommandFact,
  type DetectedCheck,
  FACT,
} from "./facts.js";
import { redactSecrets } from "./secret-scan.js";

/** One check in the handoff: its last run (through run_check or bash), or why it did not run. */
export interface CheckEntry {
  readonly kind: CheckKind;
  readonly command: string;
  readonly status: CheckStatus;
  readonly note?: string;
  /** The agent changed these files after the check's last run: its result says nothing about them. */
  readonly staleAfter?: readonly string[];
}

interface Attempt {
  readonly kind: CheckKind;
  readonly command: string;
  readonly status: "passed" | "failed";
  readonly note?: string;
  readonly via: "run_check" | "bash";
  /** The event's place in the run. */
  readonly at: number;
  readonly toolCallId?: string;
  /** Its own tool call may have written after it ran (`npm test && sed -i … f`). */
  readonly writesAfter?: boolean;
}

interface Indexed<T> {
  readonly at: number;
  readonly data: T;
}

function indexed<T>(events: readonly RunEvent[], kind: string): Indexed<T>[] {
  return events.flatMap((event, at) =>
    event.type === "fact" && event.kind === kind ? [{ at, data: event.data as T }] : [],
  );
}

/** Every run of a check, in order: run_check's, and the shell commands that ran a detected check. */
function attempts(events: readonly RunEvent[], detected: ChecksDetectedFact | undefined): Attempt[] {
  const ran: Attempt[] = indexed<CheckFact>(events, FACT.check).flatMap(({ at, data }) =>
    data.status === "passed" || data.status === "failed"
      ? [
          {
            kind: data.kind,
            command: data.command,
            status: data.status,
            via: "run_check" as const,
            at,
            ...(data.note ? { note: data.note } : {}),
            ...(data.toolCallId ? { toolCallId: data.toolCallId } : {}),
          },
        ]
      : [],
  );
  const checks = detected?.checks ?? [];
  for (const { at, data } of indexed<CommandFact>(events, FACT.command)) {
    if (data.tool === "run_check" || data.exitCode === null) continue;
    const match = matchCheck(data.command, data.exitCode, checks);
    if (!match) continue;
    const writesAfter = writesAfterCheck(data, match, checks);
    ran.push({
      kind: match.kind,
      command: redactSecrets(data.command.split("\n")[0]?.slice(0, 200) ?? ""),
      status: match.status,
      via: "bash",
      at,
      note: `run through ${data.tool}${match.status === "failed" ? `, exit code ${data.exitCode}` : ""}`,
      ...(data.toolCallId ? { toolCallId: data.toolCallId } : {}),
      ...(writesAfter ? { writesAfter } : {}),
    });
  }
  return ran.sort((a, b) => a.at - b.at);
}

/**
 * Whether a command that ran a check went on to run something that may have written: the policy's steps
 * after the last one that runs the check. A check that ends the line saw every write before it; parts
 * after it whose steps were not recorded, or not found, are taken as writing (the honest side: stale).
 */
function writesAfterCheck(fact: CommandFact, match: MatchedCheck, checks: readonly DetectedCheck[]): boolean {
  if (!match.later) return false;
  const steps = fact.steps ?? [];
  const at = steps.findLastIndex((step) => checkRunBy(step.argv, checks) === match.kind);
  if (at === -1) return true;
  return steps.slice(at + 1).some((step) => step.writes !== "none");
}

const fileKey = (file: ChangedFile) => `${file.change}:${file.added}:${file.removed}:${file.sha256 ?? ""}`;

/**
 * The files whose change differs between the change set the check saw (the last one before it, or
 * recorded by its own tool call, such as a snapshot the test wrote) and the run's last change set.
 */
function changedSince(changes: readonly Indexed<ChangesFact>[], attempt: Attempt): string[] {
  // The check's own call's changes are what it saw, unless that call ran more after the check.
  const own = (data: ChangesFact) =>
    attempt.toolCallId !== undefined && data.toolCallId === attempt.toolCallId && !attempt.writesAfter;
  const later = changes.filter(({ at, data }) => at > attempt.at && !own(data));
  if (later.length === 0) return [];
  const seen = changes.filter(({ at, data }) => at < attempt.at || own(data));
  const before = new Map((seen.at(-1)?.data.files ?? []).map((file) => [file.path, fileKey(file)]));
  const after = new Map((changes.at(-1)?.data.files ?? []).map((file) => [file.path, fileKey(file)]));
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

/** Each check kind's state at the end of the run: last run, staleness, history, or detection. */
export function checkEntries(events: readonly RunEvent[]): CheckEntry[] {
  const detected = indexed<ChecksDetectedFact>(events, FACT.checksDetected).at(-1)?.data;
  const all = attempts(events, detected);
  const changes = indexed<ChangesFact>(events, FACT.changes);
  const refused = indexed<CheckFact>(events, FACT.check).map(({ data }) => data);
  return CHECK_KINDS.map((kind): CheckEntry => {
    const runs = all.filter((attempt) => attempt.kind === kind);
    const last = runs.at(-1);
    if (last) {
      const failed = runs.filter((attempt) => attempt.status === "failed").length;
      const history = runs.length > 1 ? `${runs.length} runs, ${failed} failed` : undefined;
      const note = [last.note, history].filter(Boolean).join("; ");
      const stale = changedSince(changes, last);
      return {
        kind,
        command: last.command,
        status: last.status,
        ...(note ? { note } : {}),
        ...(stale.length > 0 ? { staleAfter: stale } : {}),
      };
    }
    // run_check was asked but did not run it (refused by the policy, no such command).
    const asked = refused.filter((check) => check.kind === kind).at(-1);
    if (asked)
      return {
        kind,
        command: asked.command,
        status: asked.status,
        ...(asked.note ? { note: asked.note } : {}),
      };
    const found = detected?.checks.find((check) => check.kind === kind);
    if (found)
      return { kind, command: found.command, status: "skipped", note: `detected (${found.source}), not run` };
    return { kind, command: "", status: "unavailable", note: `no ${kind} command found in the project` };
  });
}
