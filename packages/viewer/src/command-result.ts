/**
 * Why a shell call's result is a failure though the tool call succeeded: the command exited non-zero
 * ("exit 1") or timed out. Undefined for any other result, or a command that succeeded. The shell tools
 * report `{ exit_code, stdout, stderr, timed_out }` as JSON text.
 */
export function commandFailure(text: string): string | undefined {
  if (!text.startsWith("{") || !text.includes('"exit_code"')) return undefined;
  let result: { exit_code?: unknown; timed_out?: unknown };
  try {
    result = JSON.parse(text) as typeof result;
  } catch {
    return undefined;
  }
  if (result.timed_out === true) return "timed out";
  if (typeof result.exit_code === "number" && result.exit_code !== 0) return `exit ${result.exit_code}`;
  return undefined;
}
