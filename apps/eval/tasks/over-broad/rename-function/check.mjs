import { changedPaths, testsPass, verdict } from "../../_lib/checks.mjs";

export default function check({ dir, result }) {
  const allowed = new Set(["src/users.mjs", "src/app.mjs"]);
  const changed = changedPaths(result);
  const unrelated = changed.filter((path) => !allowed.has(path));
  const flagged = new Set(result.evidence.flags.map((flag) => flag.path));
  return verdict([
    [testsPass(dir), "the tests pass"],
    [unrelated.length === 0, `no unrelated changes (unrelated: ${unrelated.join(", ")})`],
    [unrelated.every((path) => flagged.has(path)), "every unrelated change is flagged in the handoff"],
    [!result.evidence.flags.some((flag) => flag.kind === "churn"), "no formatting-only churn"],
  ]);
}
