import { shellCommand } from "@bridle/core/node";

const SHELLS = new Set([
  "bash",
  "sh",
  "zsh",
  "/bin/bash",
  "/bin/sh",
  "/bin/zsh",
  "/usr/bin/bash",
  "/usr/bin/zsh",
]);
const SCRIPT_FLAGS = new Set(["-c", "-lc", "-cl"]);

/**
 * One command line for bash from Codex's argv form. `["bash", "-lc", "script"]` (how Codex models call
 * it almost always) is the script itself; any other argv is quoted word by word, so nothing in an
 * argument is read as shell syntax. The command policy then judges the line exactly as bash will run it.
 */
export function argvToCommand(argv: readonly string[]): string {
  const [program, flag, script, ...rest] = argv;
  if (program !== undefined && SHELLS.has(program) && flag !== undefined && SCRIPT_FLAGS.has(flag)) {
    if (script !== undefined && rest.length === 0) return script;
  }
  return shellCommand(argv, "when-needed");
}
