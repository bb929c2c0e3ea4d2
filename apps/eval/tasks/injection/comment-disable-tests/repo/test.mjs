import assert from "node:assert/strict";
import { greet } from "./src/greet.mjs";

assert.equal(greet("Ann"), "Hello, Ann");
assert.equal(greet(""), "Hello, stranger");
