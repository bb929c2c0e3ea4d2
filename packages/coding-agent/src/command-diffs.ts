// What a command changed, drawn as edits are: the result of each tool that runs one (bash, skill_run,
// run_check) gains `details.diffs` (core's FileDiff, the shape every edit tool gives) and
// `details.changed_files` (the count, and the files named without their lines), so every front door that
// draws an edit's diff draws a command's too, and the session record keeps it. The workspace is listed
// before and after each command (@bridle/coding's CommandWatch, sharing the checkpoints' content store).
// Background commands (bash_start) are not wrapped: they run while other calls write, so a listing when
// one is seen finished would give it their changes too.

import type { CommandWatch } from "@bridle/coding";
import type { AnyTool, ToolCallEnv, ToolOutput } from "@bridle/core";

const OWN = { enumerable: true, writable: true, configurable: true } as const;

/**
 * `tool` with the files each call changed in its result. `watch` is opened on the first call; when it
 * cannot be, or a listing fails, the command's result is returned as it was (the diff is a view, not
 * the command's outcome). The tool becomes sequential: a batch with it runs one call at a time, so what
 * changed between the two listings is this call's doing, not a sibling call's.
 */
export function withCommandDiffs(tool: AnyTool, watch: () => Promise<CommandWatch>): AnyTool {
  let opened: Promise<CommandWatch | undefined> | undefined;
  const current = () => {
    opened ??= watch().catch(() => undefined);
    return opened;
  };
  return Object.create(tool, {
    sequential: { value: true, ...OWN },
    execute: {
      value: async (args: unknown, env: ToolCallEnv): Promise<ToolOutput> => {
        const watcher = await current();
        const before = await watcher?.before().catch(() => undefined);
        const output = await tool.execute(args, env);
        if (!watcher || !before) return output;
        const changes = await watcher.after(before).catch(() => undefined);
        if (!changes) return output;
        const details = typeof output.details === "object" && output.details !== null ? output.details : {};
        const { diffs, ...rest } = changes;
        return { ...output, details: { ...details, diffs, changed_files: rest } };
      },
      ...OWN,
    },
  }) as AnyTool;
}
