import { z } from "zod";

/** The events Claude Code's `hooks` settings name that this package runs. */
export const claudeHookEvents = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "SessionStart",
  "SessionEnd",
  "Notification",
] as const;

export type ClaudeHookEvent = (typeof claudeHookEvents)[number];

// Loose on purpose: a settings file written for a newer Claude Code (other handler types, other fields)
// still loads; what this package cannot run is reported, not rejected.
const handlerSchema = z
  .looseObject({
    type: z.string(),
    command: z.string().optional(),
    /** Seconds, as in Claude Code. */
    timeout: z.number().positive().optional(),
  })
  // A command hook without its command is a mistake in the file, not a handler of another kind.
  .refine((handler) => handler.type !== "command" || (handler.command ?? "").trim() !== "", {
    message: 'a "command" hook needs a non-empty "command"',
  });

const groupSchema = z.looseObject({
  matcher: z.string().optional(),
  hooks: z.array(handlerSchema),
});

/** The `hooks` value of a Claude Code settings file: event → matcher groups → handlers. */
export const hookSettingsSchema = z.record(z.string(), z.array(groupSchema));

export type HookSettings = z.infer<typeof hookSettingsSchema>;

/** One command to run for an event: where it came from and how long it may take. */
export interface HookCommand {
  readonly event: ClaudeHookEvent;
  readonly matcher: string;
  readonly command: string;
  readonly timeoutSeconds: number;
}

/** Claude Code's default for command hooks. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

export function isClaudeHookEvent(name: string): name is ClaudeHookEvent {
  return (claudeHookEvents as readonly string[]).includes(name);
}
