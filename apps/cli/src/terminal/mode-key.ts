// The mode key: Shift-Tab cycles the session's modes (plan, the mode it started in, the other of workspace
// and ask), as Claude Code and Codex do; the prompt shows the mode in force. `/mode NAME` sets one by name.
import type { Interface } from "node:readline/promises";
import { isSessionMode, type ModeSwitch, type SessionMode } from "@bridle/coding-agent";

interface Keypress {
  readonly name?: string;
  readonly shift?: boolean;
}

/** The prompt for a mode: the mode's name before the marker. */
export function modePrompt(mode: SessionMode): string {
  return `${mode} › `;
}

/**
 * Cycles the mode on each Shift-Tab, whether the prompt waits or a turn runs, and redraws the prompt. Returns
 * a function that stops listening.
 */
export function watchModeKey(
  rl: Interface,
  input: NodeJS.ReadStream,
  modes: ModeSwitch,
  say: (text: string) => void,
  waiting: () => boolean,
): () => void {
  const onKey = (_text: string | undefined, key: Keypress | undefined) => {
    if (key?.name !== "tab" || !key.shift) return;
    modes.set(modes.next());
    if (waiting()) {
      rl.setPrompt(modePrompt(modes.mode));
      rl.prompt(true);
    } else say(`\x1b[2mmode: ${modes.mode} (from the next tool call)\x1b[22m\n`);
  };
  input.on("keypress", onKey);
  return () => input.off("keypress", onKey);
}

/** `/mode` and `/mode NAME`: the line to show. */
export function modeCommand(modes: ModeSwitch, arg: string | undefined): string {
  const list = modes.available().join(", ");
  if (!arg) return `mode: ${modes.mode} (available: ${list}; Shift-Tab cycles)\n`;
  if (!isSessionMode(arg)) return `no mode "${arg}"; available: ${list}\n`;
  try {
    modes.set(arg);
    return `mode: ${modes.mode}\n`;
  } catch (error) {
    return `${(error as Error).message}\n`;
  }
}
