import { homedir } from "node:os";
import { join } from "node:path";
import { readRegularFile } from "@bridle/core/node";
import { HookSettingsError } from "./hooks-from-settings.js";
import { type HookSettings, hookSettingsSchema } from "./settings.js";

/** Where a Claude Code settings file sits: only `user` and `managed` are outside the workspace. */
export type ClaudeSettingsScope = "managed" | "user" | "project" | "local";

export interface ClaudeSettingsSource {
  readonly scope: ClaudeSettingsScope;
  readonly path: string;
  /** The file's `hooks`, or undefined when it has none. */
  readonly hooks?: HookSettings;
}

/** Claude Code's documented settings files, in its order: managed, user, project, local. */
export function claudeSettingsPaths(options: {
  readonly cwd: string;
  readonly home?: string;
  readonly platform?: NodeJS.Platform;
}): { readonly scope: ClaudeSettingsScope; readonly path: string }[] {
  const home = options.home ?? homedir();
  const platform = options.platform ?? process.platform;
  const managed =
    platform === "darwin"
      ? "/Library/Application Support/ClaudeCode/managed-settings.json"
      : platform === "win32"
        ? "C:\\Program Files\\ClaudeCode\\managed-settings.json"
        : "/etc/claude-code/managed-settings.json";
  return [
    { scope: "managed", path: managed },
    { scope: "user", path: join(home, ".claude", "settings.json") },
    { scope: "project", path: join(options.cwd, ".claude", "settings.json") },
    { scope: "local", path: join(options.cwd, ".claude", "settings.local.json") },
  ];
}

/**
 * Reads the hooks of the user's Claude Code settings files, unchanged. `scopes` picks which files count
 * (project and local ones belong to the workspace: pass them only once it is trusted). Missing files are
 * skipped; a file that is not JSON, or whose `hooks` is not Claude Code's shape, is an error naming it.
 * The hooks of all files run, as in Claude Code: each event's groups are joined in file order.
 */
export async function readClaudeHookSettings(options: {
  readonly cwd: string;
  readonly home?: string;
  readonly scopes?: readonly ClaudeSettingsScope[];
}): Promise<{ readonly hooks: HookSettings; readonly sources: readonly ClaudeSettingsSource[] }> {
  const scopes = options.scopes ?? ["managed", "user"];
  const sources: ClaudeSettingsSource[] = [];
  const merged: Record<string, HookSettings[string]> = {};
  for (const { scope, path } of claudeSettingsPaths(options)) {
    if (!scopes.includes(scope)) continue;
    let text: string;
    try {
      // A settings file is small; a FIFO or a huge file there is refused, never waited on or read whole.
      text = (await readRegularFile(path, 1024 * 1024)).bytes.toString("utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new HookSettingsError(`${path} could not be read: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new HookSettingsError(`${path} is not valid JSON: ${(error as Error).message}`);
    }
    const raw =
      typeof value === "object" && value !== null ? (value as { hooks?: unknown }).hooks : undefined;
    if (raw === undefined) {
      sources.push({ scope, path });
      continue;
    }
    const parsed = hookSettingsSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HookSettingsError(
        `${path}: "hooks" is not Claude Code's shape (${issue?.path.join(".") || "hooks"}: ${issue?.message ?? "invalid"})`,
      );
    }
    sources.push({ scope, path, hooks: parsed.data });
    for (const [event, groups] of Object.entries(parsed.data))
      merged[event] = [...(merged[event] ?? []), ...groups];
  }
  return { hooks: merged, sources };
}
