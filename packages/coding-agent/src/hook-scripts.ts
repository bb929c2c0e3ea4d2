// Hook scripts in Claude Code's protocol (@bridle/hook-scripts): the `hooks` the front door settled (the
// user's own, and a workspace's only once trusted) and, when asked, the hooks of the user's Claude Code
// settings files, used unchanged. A script that fails or times out is reported, never silent.
import { join } from "node:path";
import type { HookScripts, HookSettings } from "@bridle/hook-scripts";
import { CodingAgentError } from "./errors.js";
import type { CodingAgentSettings } from "./settings.js";

export async function hookScripts(
  settings: CodingAgentSettings,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<HookScripts | undefined> {
  if (settings.hooks === undefined && !settings.claudeHooks) return undefined;
  const { HookSettingsError, hooksFromSettings, readClaudeHookSettings } = await import(
    "@bridle/hook-scripts"
  );
  try {
    const layers: HookSettings[] = [];
    if (settings.claudeHooks) {
      // The user's and the machine's Claude Code settings; a project's own Claude settings are not read.
      const claude = await readClaudeHookSettings({ cwd: settings.cwd, scopes: ["managed", "user"] });
      layers.push(claude.hooks);
    }
    if (settings.hooks !== undefined) layers.push(settings.hooks as HookSettings);
    return hooksFromSettings(mergeHooks(layers), {
      cwd: settings.cwd,
      // transcript_path: each session's transcript in Claude Code's shape, beside the session store.
      transcriptDir: join(settings.storeDir, "claude-transcripts"),
      permissionMode: settings.permissionMode,
      env,
      onReport: (report) => warn(`bridle: hook ${report.event} ${report.kind}: ${report.message}`),
    });
  } catch (error) {
    if (error instanceof HookSettingsError)
      throw new CodingAgentError("invalid_settings", `hooks: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Each event's matcher groups, in order: the Claude Code settings' first, then Bridle's own. */
function mergeHooks(layers: readonly HookSettings[]): HookSettings {
  const merged: Record<string, unknown[]> = {};
  for (const layer of layers) {
    if (typeof layer !== "object" || layer === null || Array.isArray(layer))
      throw new CodingAgentError(
        "invalid_settings",
        "hooks: must be an object of events, as in Claude Code's settings",
      );
    for (const [event, groups] of Object.entries(layer)) {
      merged[event] = [...(merged[event] ?? []), ...(Array.isArray(groups) ? groups : [groups])];
    }
  }
  return merged as unknown as HookSettings;
}
