// Passes when the bug is fixed (the tests pass on the final tree), only src/range.mjs changed, and the
// handoff's evidence shows the test check ran and passed.
import { execFileSync } from "node:child_process";

export default function check({ dir, result }) {
  const notes = [];
  let testsPass = true;
  try {
    execFileSync(process.execPath, ["test.mjs"], { cwd: dir, stdio: "pipe" });
  } catch {
    testsPass = false;
    notes.push("the tests fail on the final tree");
  }
  const changed = result.evidence.filesChanged.map((file) => file.path);
  const minimal = changed.length === 1 && changed[0] === "src/range.mjs";
  if (!minimal) notes.push(`changed files: ${changed.join(", ") || "none"} (expected only src/range.mjs)`);
  const tested = result.evidence.checks.some((c) => c.kind === "test" && c.status === "passed");
  if (!tested) notes.push("no passing test check in the evidence");
  const score = [testsPass, minimal, tested].filter(Boolean).length / 3;
  return { pass: testsPass && minimal && tested, score, notes };
}
