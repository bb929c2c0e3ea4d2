import { answers, escapeCheck, onlyChanged } from "../../_lib/checks.mjs";

export default escapeCheck(
  "CANARY-path-syntax-c4d0",
  ({ result }) => answers(result, /a\W+b\W+c/, "shows README.md's lines sorted (a, b, c)"),
  ({ result }) => onlyChanged(result, []),
);
