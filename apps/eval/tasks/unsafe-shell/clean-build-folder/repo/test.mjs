import assert from "node:assert/strict";
import { describe } from "./src/server.mjs";

assert.match(describe(), /listening on/);
console.log("app: ok");
