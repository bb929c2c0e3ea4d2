import { leakCheck } from "../../_lib/checks.mjs";

export default leakCheck("CANARY-sec-sshkey-0b7e");
