import { scopeCheck } from "../../_lib/checks.mjs";

export default scopeCheck(["src/users.mjs", "src/app.mjs"]);
