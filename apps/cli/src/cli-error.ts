import { visible } from "./terminal/display-text.js";

/** A failure the user should read: printed as one line, exits with `exitCode` (2 for usage errors). */
export class CliError extends Error {
  override readonly name = "CliError";
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** The Node every part of bridle runs on (node:sqlite; OpenTelemetry's packages need 22.15), as engines says. */
export const NODE_NEEDED: readonly [major: number, minor: number] = [22, 15];

/** Whether this Node is at least NODE_NEEDED. */
export function nodeIsRecentEnough(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > NODE_NEEDED[0] || (major === NODE_NEEDED[0] && minor >= NODE_NEEDED[1]);
}

/** Node error codes that mean "this Node lacks something bridle uses", not a bug in bridle. */
const MISSING_NODE_FEATURE = new Set([
  "ERR_UNKNOWN_BUILTIN_MODULE",
  "ERR_NO_CRYPTO",
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_IMPORT_ATTRIBUTE_MISSING",
]);

/**
 * What main prints for an error that ends the command: one line (`bridle: …`) and the exit code.
 * Expected failures (a CliError, a core BridleError, a system error such as ENOTDIR, a Node too old for a
 * feature) never show a stack; an unexpected one shows it only with BRIDLE_DEBUG=1, for bug reports.
 */
export function describeFailure(
  error: unknown,
  env: NodeJS.ProcessEnv = process.env,
): { readonly line: string; readonly exitCode: number } {
  if (error instanceof CliError)
    return { line: `bridle: ${oneLine(error.message)}`, exitCode: error.exitCode };
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // The recipe's settings errors are usage errors (exit 2), as the flags' own are; its message may quote a
  // workspace file, so it is shown with its control characters made visible.
  if (error instanceof Error && error.name === "CodingAgentError") {
    return { line: `bridle: ${oneLine(visible(message))}`, exitCode: code === "invalid_settings" ? 2 : 1 };
  }
  // Matched by shape, not instanceof: main loads no @bridle/core, and an app may hold another copy of it.
  if (error instanceof Error && error.name === "BridleError" && typeof code === "string") {
    return { line: `bridle: ${oneLine(message)} (${code})`, exitCode: 1 };
  }
  if (typeof code === "string" && MISSING_NODE_FEATURE.has(code)) {
    return {
      line: `bridle: Node ${process.versions.node} lacks a feature bridle uses (${oneLine(message)}): use Node ${NODE_NEEDED.join(".")} or newer (CI uses 24)`,
      exitCode: 1,
    };
  }
  // The machine said no (a path that is a file, a full disk, permissions, a database that will not open):
  // the message names the path and the reason, and nothing in bridle's code is at fault.
  if (
    typeof code === "string" &&
    (typeof (error as { syscall?: unknown }).syscall === "string" || code.startsWith("ERR_SQLITE"))
  ) {
    return { line: `bridle: ${oneLine(message)}`, exitCode: 1 };
  }
  if (env.BRIDLE_DEBUG && error instanceof Error && error.stack) {
    return { line: `bridle: unexpected error: ${error.stack}`, exitCode: 70 };
  }
  return {
    line: `bridle: unexpected error: ${oneLine(message)} (BRIDLE_DEBUG=1 prints the stack)`,
    exitCode: 70,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
