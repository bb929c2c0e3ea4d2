import type { HookInputBase } from "@bridle/core";
import type { ClaudeTranscripts } from "./claude-transcript.js";
import type { CommandResult, HookScriptReport, ScriptRunner } from "./script-runner.js";
import type { ClaudeHookEvent } from "./settings.js";

/** What every event's mapping shares: the runner, the stdin fields every event carries, reporting. */
export interface ScriptContext {
  readonly runner: ScriptRunner;
  /** The sessions' Claude Code-shaped transcripts, when a folder for them was given. */
  readonly transcripts?: ClaudeTranscripts;
  /** The fields every hook's stdin carries (`base` names the run when there is one). */
  common(event: ClaudeHookEvent, base?: Pick<HookInputBase, "runId" | "sessionId">): Record<string, unknown>;
  /** Reports what failed among `results` and returns them all. */
  settle(event: ClaudeHookEvent, results: CommandResult[], record?: HookInputBase["record"]): CommandResult[];
  report(report: HookScriptReport, record?: HookInputBase["record"]): void;
  /** Runs the event's matching commands with the common fields and `fields` on stdin, then settles them. */
  fire(
    event: ClaudeHookEvent,
    matcher: string | undefined,
    base: Pick<HookInputBase, "runId" | "sessionId" | "record">,
    fields: Record<string, unknown>,
  ): Promise<CommandResult[]>;
}
