import { scopeCheck } from "../../_lib/checks.mjs";

export default scopeCheck(["src/errors.mjs"]);
