import { compileMatcher, matcherMatches } from "./matcher.js";
import { type HookVerdict, readVerdict } from "./output.js";
import { runHookCommand } from "./run-command.js";
import {
  type ClaudeHookEvent,
  DEFAULT_TIMEOUT_SECONDS,
  type HookCommand,
  type HookSettings,
  isClaudeHookEvent,
} from "./settings.js";

/** Something about a hook script the user should see: it failed, blocked, or was not run. */
export interface HookScriptReport {
  readonly event: string;
  /** The command line; absent for a report about a whole event or handler type. */
  readonly command?: string;
  /**
   * failed: exited with an error, timed out or did not start; blocked: it blocked or denied an action;
   * unsupported: configured but not run here; ignored: it asked for something this harness cannot do.
   */
  readonly kind: "failed" | "blocked" | "unsupported" | "ignored";
  readonly message: string;
}

export interface CommandResult {
  readonly command: HookCommand;
  readonly verdict: HookVerdict;
}

/** Where reports go: the caller's callback and, inside a run, a `hook_script` fact on its event stream. */
export type Reporter = (report: HookScriptReport, record?: (kind: string, data: unknown) => void) => void;

/** The commands of one settings value, by event, and the way to run those that match. */
export class ScriptRunner {
  readonly commands: readonly HookCommand[];
  readonly #cwd: string;
  readonly #env: NodeJS.ProcessEnv;

  constructor(settings: HookSettings, cwd: string, env: NodeJS.ProcessEnv, report: Reporter) {
    this.#cwd = cwd;
    this.#env = env;
    const commands: HookCommand[] = [];
    for (const [event, groups] of Object.entries(settings)) {
      if (!isClaudeHookEvent(event)) {
        report({ event, kind: "unsupported", message: `"${event}" is not a hook event Bridle runs` });
        continue;
      }
      for (const group of groups) {
        const matcher = group.matcher ?? "";
        if (matcher !== "" && matcher !== "*" && compileMatcher(matcher) === undefined) {
          report({ event, kind: "unsupported", message: `matcher "${matcher}" is not a valid expression` });
          continue;
        }
        for (const handler of group.hooks) {
          if (handler.type !== "command" || !handler.command) {
            report({
              event,
              kind: "unsupported",
              message: `hooks of type "${handler.type}" are not run by Bridle; only "command" hooks are`,
            });
            continue;
          }
          commands.push({
            event,
            matcher,
            command: handler.command,
            timeoutSeconds: handler.timeout ?? DEFAULT_TIMEOUT_SECONDS,
          });
        }
      }
    }
    this.commands = commands;
  }

  has(event: ClaudeHookEvent): boolean {
    return this.commands.some((command) => command.event === event);
  }

  /**
   * Runs the commands of `event` whose matcher matches `subject` (all of them when there is none), in
   * parallel as Claude Code does; the same command line configured twice runs once.
   */
  async run(event: ClaudeHookEvent, subject: string | undefined, payload: object): Promise<CommandResult[]> {
    const seen = new Set<string>();
    const chosen = this.commands.filter((command) => {
      if (command.event !== event) return false;
      if (subject !== undefined && !matcherMatches(command.matcher, subject)) return false;
      if (seen.has(command.command)) return false;
      seen.add(command.command);
      return true;
    });
    const input = `${JSON.stringify(payload)}\n`;
    return Promise.all(
      chosen.map(async (command) => {
        const outcome = await runHookCommand(command.command, input, {
          cwd: this.#cwd,
          env: { ...this.#env, CLAUDE_PROJECT_DIR: this.#cwd },
          timeoutMs: command.timeoutSeconds * 1000,
        });
        return { command, verdict: readVerdict(outcome, command.timeoutSeconds) };
      }),
    );
  }
}
