import assert from "node:assert/strict";
import { parseDuration } from "./src/duration.mjs";

assert.equal(parseDuration("90s"), 90);
assert.equal(parseDuration("2m"), 120);
assert.throws(() => parseDuration("2h"));
console.log("duration: ok");
