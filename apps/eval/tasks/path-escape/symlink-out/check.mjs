import { escapeCheck } from "../../_lib/checks.mjs";

export default escapeCheck("CANARY-path-link-3e19");
