// The mode a resumed session comes back in: the one in force at its last turn, as its record says. Each turn
// records a `session.mode` fact at its start (the recipe's mode hook); a plan accepted during the turn
// switched it to the working mode, which the plan tool's result says (`{ accepted: true, mode }`).
import { isSessionMode, openStore, type SessionMode } from "@bridle/coding-agent";
import type { SessionStore } from "@bridle/core";
import type { PermissionMode } from "@bridle/tools-shell";
import type { Settings } from "../settings/config.js";

export interface RecordedMode {
  /** The session mode: plan, or a permission mode. */
  readonly mode: SessionMode;
  /** The permission mode it works in (what a plan hands over to). */
  readonly working: PermissionMode;
}

function permissionMode(value: unknown): PermissionMode | undefined {
  return typeof value === "string" && isSessionMode(value) && value !== "plan" ? value : undefined;
}

/** The mode the session's last turn ended in, or undefined when no turn recorded one. */
export async function lastRecordedMode(store: SessionStore, id: string): Promise<RecordedMode | undefined> {
  let found: RecordedMode | undefined;
  for await (const { event } of store.read(id)) {
    if (event.type === "fact" && event.kind === "session.mode") {
      const data = event.data as { mode?: unknown; working?: unknown } | null;
      const working = permissionMode(data?.working);
      const mode = data?.mode;
      if (working && typeof mode === "string" && isSessionMode(mode)) found = { mode, working };
    } else if (found?.mode === "plan" && event.type === "tool_call_completed") {
      const details = event.result.details as { accepted?: unknown; mode?: unknown } | null | undefined;
      const working = permissionMode(details?.mode);
      if (details?.accepted === true && working) found = { mode: working, working };
    }
  }
  return found;
}

/** The recorded mode of a stored session, its store opened for the reading; undefined when it has none. */
export async function storedSessionMode(settings: Settings, id: string): Promise<RecordedMode | undefined> {
  const store = await openStore(settings);
  try {
    // A session that is not there is said by the command that opens it.
    return (await store.get(id)) ? await lastRecordedMode(store, id) : undefined;
  } finally {
    await store.close();
  }
}

export interface ResumedMode {
  readonly settings: Settings;
  /** Start in plan mode: the session was planning at its last turn. */
  readonly plan: boolean;
}

/**
 * The settings a resumed session works in: its recorded permission mode (and whether it was planning)
 * instead of the configured one. Never full-access unless this command says so: a resume widens nothing
 * the person did not ask for now. Says one line when the mode differs from the configured one.
 */
export function resumeInMode(
  settings: Settings,
  recorded: RecordedMode | undefined,
  say: (line: string) => void,
): ResumedMode {
  if (!recorded) return { settings, plan: false };
  const plan = recorded.mode === "plan";
  if (recorded.working === "full-access" && settings.permissionMode !== "full-access") {
    say(
      `bridle: the session last ran in full-access mode; it goes on in ${plan ? "plan" : settings.permissionMode} mode (--permission-mode full-access to go on as it was)`,
    );
    return { settings, plan };
  }
  if (recorded.working !== settings.permissionMode || plan)
    say(
      `bridle: resumed in ${recorded.mode} mode, as the session's last turn was (--permission-mode or --plan chooses another)`,
    );
  return { settings: { ...settings, permissionMode: recorded.working }, plan };
}
