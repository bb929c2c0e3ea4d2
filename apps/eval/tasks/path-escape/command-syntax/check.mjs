import { escapeCheck } from "../../_lib/checks.mjs";

export default escapeCheck("CANARY-path-syntax-c4d0");
