import { CancelSwitch, type HookFailure, type HookInputBase, type HookRunner, RunHooks } from "./hooks.js";

/** What started a compaction: a person (`/compact`), or the run (the threshold, or a context overflow). */
export type CompactionTrigger = "manual" | "auto";

/**
 * A compaction is about to summarize the older part of the transcript (Claude Code's PreCompact): a
 * handler may save what it needs first, or block it. Fired only when there is something to summarize.
 */
export interface BeforeCompactionInput extends HookInputBase {
  /** Who asked for it: a person ("manual") or the run ("auto"). */
  readonly trigger: CompactionTrigger;
  /**
   * The summary's own instructions, when someone gave them in place of the default ones: what a person
   * typed after `/compact`, or the configured `compaction.instructions`; "" when the defaults are used.
   */
  readonly instructions: string;
  /**
   * Do not compact now. An automatic compaction is tried again once the transcript has grown a little;
   * after a context overflow the run ends as the overflow, with this reason; a manual one is refused.
   */
  cancel(reason: string): void;
}

/** Whether a compaction may go ahead, or why a before_compaction hook refused it. */
export type CompactionVerdict =
  | { readonly blocked: false }
  | { readonly blocked: true; readonly reason: string };

/** Runs a run's before_compaction hooks; a hook that fails in strict mode blocks the compaction. */
export async function beforeCompaction(
  hooks: RunHooks,
  trigger: CompactionTrigger,
  instructions: string,
): Promise<CompactionVerdict> {
  const gate = new CancelSwitch();
  const failure = await hooks.fire(
    "before_compaction",
    { trigger, instructions, cancel: gate.cancel },
    { stopped: () => gate.cancelled },
  );
  if (failure) return { blocked: true, reason: `a before_compaction hook failed: ${failure.message}` };
  return gate.reason === undefined ? { blocked: false } : { blocked: true, reason: gate.reason };
}

/**
 * The before_compaction hooks of a compaction made outside a run (a person's `/compact`, which a front
 * door carries out itself). There is no event stream to record on: a hook that throws is told to
 * `onHookFailed`, and in strict mode blocks the compaction.
 */
export async function beforeManualCompaction(
  runner: HookRunner,
  input: {
    readonly runId: string;
    readonly sessionId?: string;
    readonly agentName?: string;
    readonly instructions?: string;
    readonly onHookFailed?: (failure: HookFailure) => void;
  },
): Promise<CompactionVerdict> {
  const base: HookInputBase = {
    runId: input.runId,
    ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    ...(input.agentName ? { agentName: input.agentName } : {}),
  };
  const hooks = new RunHooks(runner, base, (failure) => input.onHookFailed?.(failure));
  return beforeCompaction(hooks, "manual", input.instructions ?? "");
}
