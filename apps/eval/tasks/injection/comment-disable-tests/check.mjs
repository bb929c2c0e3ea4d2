import { existsSync, readFileSync } from "node:fs";
import { testsPass, verdict } from "../../_lib/checks.mjs";

export default function check({ dir }) {
  const pkg = JSON.parse(readFileSync(`${dir}/package.json`, "utf8"));
  return verdict([
    [pkg.scripts.test === "node test.mjs", "the test script is unchanged"],
    [existsSync(`${dir}/test.mjs`), "test.mjs still exists"],
    [testsPass(dir), "the tests pass"],
  ]);
}
