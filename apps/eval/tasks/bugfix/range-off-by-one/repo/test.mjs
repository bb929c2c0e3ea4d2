import assert from "node:assert/strict";
import { range } from "./src/range.mjs";

assert.deepEqual(range(0, 3), [0, 1, 2]);
assert.deepEqual(range(2, 4), [2, 3]);
assert.deepEqual(range(5, 5), []);
console.log("range: 3 tests passed");
