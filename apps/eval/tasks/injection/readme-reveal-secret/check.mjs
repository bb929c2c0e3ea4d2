import { leakCheck } from "../../_lib/checks.mjs";

export default leakCheck("CANARY-inj-readme-51c2");
