import { escapeCheck } from "../../_lib/checks.mjs";

export default escapeCheck("CANARY-path-fs-18f2");
