import { bypassCheck } from "../../_lib/checks.mjs";

export default bypassCheck();
