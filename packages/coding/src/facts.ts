// The facts the overlay records on the run's event stream (core's `fact` events). The evidence handoff
// is built from these and the run's own events only, so their shapes are the overlay's record format.

export const FACT = {
  baseline: "coding.baseline",
  checksDetected: "coding.checks_detected",
  changes: "coding.changes",
  command: "coding.command",
  check: "coding.check",
  plan: "coding.plan",
  notes: "coding.notes",
  history: "coding.history",
} as const;

export type CheckKind = "test" | "lint" | "typecheck" | "build";
export const CHECK_KINDS: readonly CheckKind[] = ["test", "lint", "typecheck", "build"];

export type CheckStatus = "passed" | "failed" | "skipped" | "unavailable";

/** A user's change present before the run: git's status letters, or "present" in a folder snapshot. */
export interface PreexistingChange {
  readonly path: string;
  /** `staged`, `unstaged`, `untracked` (several for a file staged and then edited again). */
  readonly states: readonly string[];
  /** SHA-256 of the working file at the baseline, null when the user had deleted it. */
  readonly sha256: string | null;
}

export interface BaselineFact {
  readonly repository: "git" | "folder";
  readonly head?: string;
  readonly branch?: string;
  readonly preexisting: readonly PreexistingChange[];
  /** Folder snapshots: files hashed; `truncated` when the folder had more than the snapshot holds. */
  readonly snapshot?: { readonly files: number; readonly truncated: boolean };
}

export interface DetectedCheck {
  readonly kind: CheckKind;
  readonly command: string;
  /** Where it came from: "package.json scripts.test", "Makefile target lint", "go.mod"... */
  readonly source: string;
  /** For a script runner: the script's own text, which the command policy also judges. */
  readonly body?: string;
}

export interface ChecksDetectedFact {
  readonly checks: readonly DetectedCheck[];
  readonly packageManager?: string;
}

export interface ReviewFlag {
  /** `tests`: a test file lost assertions, gained a skip marker, or was deleted. */
  readonly kind: "secret" | "churn" | "scope" | "tests";
  readonly path: string;
  readonly note: string;
}

export interface ChangedFile {
  readonly path: string;
  readonly added: number;
  readonly removed: number;
  readonly change: "added" | "modified" | "deleted";
  /** SHA-256 of the file when the change set was taken (null when deleted). */
  readonly sha256?: string | null;
}

/** The agent's whole change set so far (each fact replaces the previous one), with the review's flags. */
export interface ChangesFact {
  readonly files: readonly ChangedFile[];
  readonly flags: readonly ReviewFlag[];
  /** The tool call after which the change was seen; absent for the final review's scan. */
  readonly toolCallId?: string;
}

/** One sub-command of a shell command, in the order the command policy found them. */
export interface CommandStep {
  /** Its first words (canonical: wrappers and the program's folder taken off). */
  readonly argv: readonly string[];
  /** "none" when the policy proved it wrote nothing. */
  readonly writes: "none" | "possible";
}

export interface CommandFact {
  readonly command: string;
  /** null when the command never produced an exit status (refused by the policy). */
  readonly exitCode: number | null;
  readonly tool: string;
  readonly toolCallId?: string;
  /** Its sub-commands in order, when the tool said how the policy read it (which ran after a check). */
  readonly steps?: readonly CommandStep[];
}

/** What the final review found besides file contents (git work trees only). */
export interface HistoryFact {
  /** Set when HEAD moved during the run: the agent's commits (newest first), or a reset. */
  readonly head?: {
    readonly from: string | null;
    readonly to: string;
    readonly commits: readonly { readonly sha: string; readonly subject: string }[];
    readonly commitCount: number;
  };
  /** Executable bits changed (git modes 100644 and 100755). */
  readonly modes: readonly { readonly path: string; readonly from: string; readonly to: string }[];
  /** Files written into paths .gitignore hides, with what the secret scan found (never the values). */
  readonly ignored: readonly {
    readonly path: string;
    readonly change: "added" | "modified";
    readonly secrets: readonly string[];
  }[];
  /** The ignored files watched passed the bound (20 000): writes past it are not listed. */
  readonly ignoredTruncated?: boolean;
}

export interface CheckFact {
  readonly kind: CheckKind;
  readonly command: string;
  readonly status: CheckStatus;
  readonly exitCode?: number;
  readonly note?: string;
  /** How many failed attempts of checks this run has had, and how many it allows. */
  readonly failures: number;
  readonly maxFailures: number;
  readonly toolCallId?: string;
}

export interface PlanItem {
  readonly step: string;
  readonly status: "pending" | "in_progress" | "completed";
}

export interface PlanFact {
  readonly items: readonly PlanItem[];
  readonly scope?: readonly string[];
  readonly explanation?: string;
}

export interface NotesFact {
  readonly assumptions: readonly string[];
  readonly risks: readonly string[];
  readonly followUps: readonly string[];
}
