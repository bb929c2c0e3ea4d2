// One line of a results file: one run of one task. Every producer (the task runner, the edit-format
// benchmark, the overhead suite) writes this shape, so one report reads them all.
import { z } from "zod";
import { BridleEvalError } from "./errors.js";

/** The edit tool set a run used; "none" when the task made no edits through an edit tool. */
export const EditFormat = z.union([
  z.enum(["replace", "hashline", "apply_patch", "none"]),
  z.string().min(1),
]);
export type EditFormat = z.infer<typeof EditFormat>;

export const ResultLine = z.object({
  /** Schema version of this line, so an older results file is read or refused knowingly. */
  v: z.literal(1).default(1),
  taskId: z.string().min(1),
  suite: z.string().min(1),
  tags: z.array(z.string()).default([]),
  /** Edit tool set the run used (the benchmark's "format"); "none" when irrelevant. */
  format: EditFormat.default("none"),
  /** "scripted" for the scripted model, else the provider name as the CLI takes it. */
  provider: z.string().min(1),
  model: z.string().min(1),
  /** Name of the script (scripted runs) or "live"; part of the run's identity for --resume. */
  script: z.string().min(1).default("live"),
  /** 0-based index among the --runs N repetitions. */
  runIndex: z.number().int().nonnegative(),
  /**
   * What the run's check should conclude: "fail" for a deliberately bad agent (a script marked
   * `expect: "fail"`, a sabotage agent), whose failing run is the harness and the check doing their job.
   */
  expect: z.enum(["pass", "fail"]).default("pass"),
  pass: z.boolean(),
  /** 0..1; 1 or 0 when the check gave none. */
  score: z.number().min(0).max(1),
  notes: z.array(z.string()).default([]),
  sessionId: z.string(),
  /** Path of the run's recorded events (JSONL), relative to the results file when possible. */
  eventsPath: z.string(),
  /** The run's page in the session viewer (self-contained HTML), relative to the results file. */
  viewPath: z.string().optional(),
  durationMs: z.number().nonnegative(),
  /** Model turns taken. */
  turns: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  /** Tool calls whose result was an error of any kind (denied, invalid, not found…). */
  failedToolCalls: z.number().int().nonnegative(),
  /** Calls of edit tools; absent in lines written before it was counted. */
  editCalls: z.number().int().nonnegative().optional(),
  /** Failed calls of edit tools (edit_file, write_file, hashline edits, apply_patch). */
  failedEditCalls: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Null when the model's price is unknown (scripted runs cost 0). */
  costUsd: z.number().nonnegative().nullable(),
  /** How the agent run ended (completed, max_turns, aborted, error…). */
  stopReason: z.string().optional(),
  /** Set when the run or its check could not be carried out; such a line is not a pass. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** ISO 8601. */
  startedAt: z.string(),
  /** Free-form figures a producer wants charted (extra turns, injected mistakes…). */
  metrics: z.record(z.string(), z.number()).optional(),
});
export type ResultLine = z.infer<typeof ResultLine>;
/** What a producer writes (defaults may be left out). */
export type ResultLineInput = z.input<typeof ResultLine>;

/** Whether the line says anything about edit success: it made an edit call (the edit bench always does). */
export const madeEdits = (line: ResultLine): boolean =>
  (line.editCalls ?? (line.suite === "edit-format" ? 1 : 0)) > 0;

/** A run whose check concluded what its script expected. */
export const asExpected = (line: ResultLine): boolean => line.pass === (line.expect === "pass");

/** The identity --resume matches on: same suite and task, model, format, script and repetition. */
export function runKey(
  line: Pick<ResultLine, "suite" | "taskId" | "provider" | "model" | "format" | "script" | "runIndex">,
): string {
  return [line.suite, line.taskId, line.provider, line.model, line.format, line.script, line.runIndex].join(
    "\u0000",
  );
}

/** Parses a results file's text; a malformed line is reported with its number, never skipped silently. */
export function parseResultLines(text: string): ResultLine[] {
  const out: ResultLine[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]?.trim();
    if (!raw) continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      // A line cut short by a crash mid-write is the only tolerated damage: the last one.
      if (i >= lines.length - 2) continue;
      throw new BridleEvalError("InvalidResults", `line ${i + 1} is not JSON`);
    }
    const parsed = ResultLine.safeParse(json);
    if (!parsed.success) {
      throw new BridleEvalError(
        "InvalidResults",
        `line ${i + 1}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    }
    out.push(parsed.data);
  }
  return out;
}
