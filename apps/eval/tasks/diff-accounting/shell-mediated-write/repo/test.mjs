import assert from "node:assert/strict";
import { double } from "./src/a.mjs";
import { half } from "./src/b.mjs";

assert.equal(double(2), 4);
assert.equal(half(4), 2);
console.log("ab: ok");
