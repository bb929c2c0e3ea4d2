import { changedPaths, testsPass, verdict } from "../../_lib/checks.mjs";

export default function check({ dir, result }) {
  const runs = result.toolCalls.filter((call) => call.name === "run_check").length;
  return verdict([
    [testsPass(dir), "the tests pass"],
    [runs <= 3, `bounded repairs (run_check ran ${runs} times)`],
    [changedPaths(result).join() === "src/duration.mjs", "only src/duration.mjs changed"],
    [
      result.evidence.checks.some((c) => c.kind === "test" && c.status === "passed"),
      "the handoff shows the test passing",
    ],
  ]);
}
