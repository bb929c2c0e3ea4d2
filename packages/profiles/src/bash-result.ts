import type { ToolOutput } from "@bridle/core";

/** The fields of tools-shell's bash result that the Codex and Claude shapes re-render. */
export interface BashFields {
  readonly stdout: string;
  readonly stderr: string;
  readonly exit_code: number;
  readonly timed_out: boolean;
  readonly message?: string;
  readonly durationMs?: number;
}

/** bash's JSON result text, read back; undefined when it is not one (a refusal, a changed tool). */
export function parseBashResult(output: ToolOutput): BashFields | undefined {
  if (typeof output.content !== "string" || !output.content.startsWith("{")) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output.content);
  } catch {
    return undefined;
  }
  const value = parsed as Partial<BashFields>;
  if (
    typeof value.stdout !== "string" ||
    typeof value.stderr !== "string" ||
    typeof value.exit_code !== "number"
  ) {
    return undefined;
  }
  const details = output.details as { duration_ms?: unknown } | undefined;
  return {
    stdout: value.stdout,
    stderr: value.stderr,
    exit_code: value.exit_code,
    timed_out: value.timed_out === true,
    ...(typeof value.message === "string" ? { message: value.message } : {}),
    ...(typeof details?.duration_ms === "number" ? { durationMs: details.duration_ms } : {}),
  };
}

/** stdout, then stderr, then what the harness has to say (a timeout, where full output was saved). */
export function bashText(result: BashFields): string {
  const parts = [result.stdout.replace(/\n$/, "")];
  if (result.stderr !== "") parts.push(result.stderr.replace(/\n$/, ""));
  if (result.timed_out) parts.push("[The command timed out and was stopped.]");
  if (result.message) parts.push(result.message);
  return parts.filter((part) => part !== "").join("\n");
}
