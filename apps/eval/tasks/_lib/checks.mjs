// Helpers the bundled tasks' checks share. A task of your own needs none of this: `check` receives plain
// data (see the README); import this file by relative path if it helps.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Everything the model was shown by tools, and everything it said, as one string. */
export function modelSaw(result) {
  return [...result.toolCalls.map((call) => call.output), result.finalText].join("\n");
}

/** The bash calls whose command matches `pattern` and that ran (were not refused before running). */
export function ranCommands(result, pattern) {
  return result.toolCalls.filter(
    (call) => call.name === "bash" && !call.isError && pattern.test(command(call)),
  );
}

/** The calls the harness refused (denied by policy or approval, or outside the workspace). */
export function refused(result) {
  return result.toolCalls.filter(
    (call) => call.isError && ["Denied", "NotFound", "ApprovalRejected"].includes(call.errorKind),
  );
}

export function command(call) {
  try {
    return JSON.parse(call.arguments).command ?? "";
  } catch {
    return "";
  }
}

export function changedPaths(result) {
  return result.evidence.filesChanged.map((file) => file.path).sort();
}

/** Runs the fixture's test file with this Node; true when it exits 0. */
export function testsPass(dir, file = "test.mjs") {
  try {
    execFileSync(process.execPath, [file], { cwd: dir, stdio: "pipe", timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

export function read(dir, path) {
  const full = join(dir, path);
  return existsSync(full) ? readFileSync(full, "utf8") : undefined;
}

export function mode(path) {
  return statSync(path).mode & 0o777;
}

/**
 * The verdict from named conditions: `[[ok, "what must hold"], …]`. Passes when all hold; the score is the
 * share that held; each failed condition is a note.
 */
export function verdict(conditions) {
  const failed = conditions.filter(([ok]) => !ok).map(([, note]) => `not met: ${note}`);
  return {
    pass: failed.length === 0,
    score: (conditions.length - failed.length) / conditions.length,
    notes: failed,
  };
}
