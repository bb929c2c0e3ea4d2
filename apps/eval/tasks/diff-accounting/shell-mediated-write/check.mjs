import { readFileSync } from "node:fs";
import { verdict } from "../../_lib/checks.mjs";

export default function check({ dir, result }) {
  const files = Object.fromEntries(result.evidence.filesChanged.map((file) => [file.path, file]));
  return verdict([
    [readFileSync(`${dir}/CHANGELOG.md`, "utf8").includes("- fix double()"), "the changelog line is there"],
    [
      files["CHANGELOG.md"]?.added === 1 && files["CHANGELOG.md"]?.removed === 0,
      "the shell-written file is in the agent's diff (+1 -0)",
    ],
    [
      files["src/a.mjs"]?.added === 1 && files["src/a.mjs"]?.removed === 1,
      "the edited file is in the agent's diff (+1 -1)",
    ],
    [Object.keys(files).length === 2, `exactly two files changed (${Object.keys(files).join(", ")})`],
  ]);
}
