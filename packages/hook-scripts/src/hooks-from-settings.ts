import { type AnyHook, type EventObserver, errorMessage } from "@bridle/core";
import { ClaudeTranscripts } from "./claude-transcript.js";
import { ScriptObserver } from "./observer.js";
import { runHooks } from "./run-hooks.js";
import type { ScriptContext } from "./script-context.js";
import { type HookScriptReport, ScriptRunner } from "./script-runner.js";
import { type ClaudeHookEvent, type HookCommand, hookSettingsSchema } from "./settings.js";
import { toolHooks } from "./tool-hooks.js";

export interface HookScriptOptions {
  /** The project folder: the hooks' cwd, `cwd` on their stdin and `$CLAUDE_PROJECT_DIR`. */
  readonly cwd: string;
  /** `session_id` on stdin (default: the run's session, else the run's id). */
  readonly sessionId?: string;
  /**
   * A folder to keep each session's transcript in, in Claude Code's JSONL shape (`<session id>.jsonl`):
   * `transcript_path` then names that file. Written by `observer`, so pass it in each run's `observers`.
   */
  readonly transcriptDir?: string;
  /** `transcript_path` on stdin, as given (in place of `transcriptDir`'s files). */
  readonly transcriptPath?: string;
  /** `permission_mode` on stdin (default "default"). */
  readonly permissionMode?: string;
  /** The hooks' environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Told of every hook that fails, times out, blocks, or cannot be run here. Inside a run the same
   * report is also a `hook_scripts.report` fact on the run's event stream.
   */
  readonly onReport?: (report: HookScriptReport) => void;
}

export type SessionEndReason = "clear" | "logout" | "prompt_input_exit" | "other";

export interface HookScripts {
  /** The Bridle hooks to give a Harness (`hooks: [...scripts.hooks]`). */
  readonly hooks: readonly AnyHook[];
  /** Runs the Notification and PostCompact hooks: pass it in each run's `observers`. */
  readonly observer: EventObserver & { idle(): Promise<void> };
  /** The commands that will run, by event. */
  readonly commands: readonly HookCommand[];
  /** Runs the SessionEnd hooks: call it when the session closes (Bridle has no run to hang it on). */
  sessionEnd(reason: SessionEndReason): Promise<void>;
}

/** A `hooks` settings value, or a settings file, that is not Claude Code's shape. */
export class HookSettingsError extends Error {
  override readonly name = "HookSettingsError";
  readonly code = "hook_settings_invalid";
}

/**
 * Turns Claude Code's `hooks` settings (event → matcher groups → `{ type: "command", command, timeout }`)
 * into Bridle hooks that run those commands with Claude Code's stdin JSON, exit codes and JSON output.
 * A hook that fails or times out is reported; a PreToolUse hook that fails denies the call.
 */
export function hooksFromSettings(settings: unknown, options: HookScriptOptions): HookScripts {
  const parsed = hookSettingsSchema.safeParse(settings ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HookSettingsError(
      `the hooks settings are not Claude Code's shape (${issue?.path.join(".") || "hooks"}: ${issue?.message ?? "invalid"})`,
    );
  }
  const report: ScriptContext["report"] = (item, record) => {
    options.onReport?.(item);
    record?.("hook_scripts.report", item);
  };
  const runner = new ScriptRunner(parsed.data, options.cwd, options.env ?? process.env, report);
  const transcripts =
    options.transcriptDir !== undefined && options.transcriptPath === undefined
      ? new ClaudeTranscripts(options.transcriptDir, options.cwd)
      : undefined;
  const transcriptOf = (session: string): string => {
    if (options.transcriptPath !== undefined) return options.transcriptPath;
    if (!transcripts || session === "") return "";
    try {
      return transcripts.pathFor(session);
    } catch (error) {
      report({
        event: "transcript",
        kind: "failed",
        message: `the transcript could not be written: ${errorMessage(error)}`,
      });
      return "";
    }
  };
  const scripts: ScriptContext = {
    runner,
    report,
    transcripts,
    common: (event: ClaudeHookEvent, base) => {
      const session = options.sessionId ?? base?.sessionId ?? base?.runId ?? "";
      return {
        session_id: session,
        transcript_path: transcriptOf(base?.sessionId ?? base?.runId ?? session),
        cwd: options.cwd,
        permission_mode: options.permissionMode ?? "default",
        hook_event_name: event,
      };
    },
    fire: async (event, matcher, base, fields) =>
      scripts.settle(
        event,
        await runner.run(event, matcher, { ...scripts.common(event, base), ...fields }),
        base.record,
      ),
    settle: (event, results, record) => {
      for (const { command, verdict } of results) {
        if (verdict.kind === "error") {
          report({ event, command: command.command, kind: "failed", message: verdict.message }, record);
        }
      }
      return results;
    },
  };
  return {
    hooks: [...runHooks(scripts), ...toolHooks(scripts)],
    observer: new ScriptObserver(scripts),
    commands: runner.commands,
    sessionEnd: async (reason) => {
      if (!runner.has("SessionEnd")) return;
      scripts.settle(
        "SessionEnd",
        await runner.run("SessionEnd", reason, { ...scripts.common("SessionEnd"), reason }),
      );
    },
  };
}
