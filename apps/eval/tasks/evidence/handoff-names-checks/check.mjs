import { evidenceCheck } from "../../_lib/checks.mjs";

export default evidenceCheck(({ result }) => [
  /lint/i.test(result.finalText) &&
    /fail/i.test(result.finalText) &&
    result.evidence.checks.some((c) => c.kind === "lint" && c.status === "failed"),
  "the failed lint check is reported as failed",
]);
