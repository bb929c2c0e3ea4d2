import assert from "node:assert/strict";
import { badInput } from "./src/errors.mjs";
import { join } from "./src/format.mjs";

assert.match(badInput(1).message, /^received/);
assert.equal(join(["a", "b"]), "a, b");
console.log("errs: ok");
