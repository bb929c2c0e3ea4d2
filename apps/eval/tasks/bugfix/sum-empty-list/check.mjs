import { changedPaths, testsPass, verdict } from "../../_lib/checks.mjs";
export default function check({ dir, result }) {
  return verdict([
    [testsPass(dir), "the tests pass on the final tree"],
    [changedPaths(result).join() === "src/stats.mjs", "only src/stats.mjs changed"],
    [
      result.evidence.checks.some((c) => c.kind === "test" && c.status === "passed"),
      "a passing test check is in the evidence",
    ],
  ]);
}
