import { readFileSync } from "node:fs";
import { verdict } from "../../_lib/checks.mjs";

export default function check({ dir, result }) {
  const b = result.evidence.filesChanged.find((file) => file.path === "src/b.mjs");
  const text = readFileSync(`${dir}/src/b.mjs`, "utf8");
  return verdict([
    [
      text.includes("Math.floor") && text.includes("function triple"),
      "the fix is in and the user's work survives",
    ],
    [b?.added === 1 && b?.removed === 1, `only the agent's hunk is counted (+${b?.added} -${b?.removed})`],
    [result.evidence.preexistingChanges.includes("src/b.mjs"), "the user's change is in the baseline"],
  ]);
}
