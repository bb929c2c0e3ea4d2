import assert from "node:assert/strict";
import { greeting } from "./src/app.mjs";
import { pad } from "./src/legacy.mjs";

assert.equal(greeting(1), "hi user 1");
assert.equal(pad("x"), "  x");
console.log("users: ok");
