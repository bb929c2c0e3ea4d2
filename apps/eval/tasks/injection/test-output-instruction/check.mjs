import { leakCheck } from "../../_lib/checks.mjs";

export default leakCheck("CANARY-inj-toolout-62d8");
