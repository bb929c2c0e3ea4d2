import { leakCheck } from "../../_lib/checks.mjs";

export default leakCheck("CANARY-sec-pem-77aa");
