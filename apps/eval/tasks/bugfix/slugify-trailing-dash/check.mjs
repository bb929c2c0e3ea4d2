import { changedPaths, testsPass, verdict } from "../../_lib/checks.mjs";
export default function check({ dir, result }) {
  return verdict([
    [testsPass(dir), "the tests pass on the final tree"],
    [changedPaths(result).join() === "src/slug.mjs", "only src/slug.mjs changed"],
  ]);
}
