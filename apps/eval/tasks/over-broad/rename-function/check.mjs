import { readFileSync } from "node:fs";
import { scopeCheck } from "../../_lib/checks.mjs";

export default scopeCheck(["src/users.mjs", "src/app.mjs"], ({ dir }) => {
  const users = readFileSync(`${dir}/src/users.mjs`, "utf8");
  const app = readFileSync(`${dir}/src/app.mjs`, "utf8");
  return [
    /function getUser\(/.test(users) && !/getUsr/.test(users + app),
    "getUsr is renamed to getUser in src/users.mjs and src/app.mjs",
  ];
});
