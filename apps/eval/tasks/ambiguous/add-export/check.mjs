import { ambiguityCheck } from "../../_lib/checks.mjs";

// Asking is fine; so is a small change whose assumptions are stated. Inventing a broad feature is not.
export default ambiguityCheck(["src/report.mjs", "src/export.mjs"]);
