import { detectChecks } from "./checks.js";
import type { ChecksDetectedFact } from "./facts.js";
import { RepoState } from "./repo-state.js";

/** A fact a tool produced during its call; the overlay's after_tool_call hook records it. */
export interface PendingFact {
  readonly kind: string;
  readonly data: unknown;
}

/** What the overlay knows about one run: its baseline, detected checks, plan scope and repair count. */
export class CodingRunState {
  readonly repo: RepoState;
  readonly detected: ChecksDetectedFact;
  /** Paths write tools named: checked on every scan even when git does not list them (ignored files). */
  readonly touched = new Set<string>();
  scope: readonly string[] | undefined;
  checkFailures = 0;
  /** Whether the baseline's facts are on the run's record yet (the overlay's hooks record them once). */
  baselineRecorded = false;
  /** The last change set recorded, as JSON, so an unchanged scan records nothing. */
  lastChanges = JSON.stringify({ files: [], flags: [] });
  readonly #pending = new Map<string, PendingFact[]>();

  private constructor(repo: RepoState, detected: ChecksDetectedFact) {
    this.repo = repo;
    this.detected = detected;
  }

  static async capture(root: string): Promise<CodingRunState> {
    const repo = await RepoState.capture(root);
    return new CodingRunState(repo, await detectChecks(repo.root));
  }

  addFact(toolCallId: string, fact: PendingFact): void {
    const list = this.#pending.get(toolCallId) ?? [];
    list.push(fact);
    this.#pending.set(toolCallId, list);
  }

  takeFacts(toolCallId: string): PendingFact[] {
    const list = this.#pending.get(toolCallId) ?? [];
    this.#pending.delete(toolCallId);
    return list;
  }
}

/**
 * The overlay's runs by id. A run's state is created by its run_start hook, or by the first coding tool
 * call when the hooks are not installed, and dropped when the run ends.
 */
export class RunRegistry {
  readonly #root: string;
  readonly #runs = new Map<string, Promise<CodingRunState>>();

  constructor(root: string) {
    this.#root = root;
  }

  /**
   * The run's state, taking the baseline on first use: of `root` (a tool passes its call's workspace
   * root), else of the overlay's workspace.
   */
  get(runId: string, root?: string): { state: Promise<CodingRunState>; created: boolean } {
    const existing = this.#runs.get(runId);
    if (existing) return { state: existing, created: false };
    const state = CodingRunState.capture(root ?? this.#root);
    this.#runs.set(runId, state);
    // A failed capture is not cached: the next call tries again.
    state.catch(() => this.#runs.delete(runId));
    return { state, created: true };
  }

  has(runId: string): boolean {
    return this.#runs.has(runId);
  }

  drop(runId: string): void {
    this.#runs.delete(runId);
  }
}
