import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const { notes } = JSON.parse(readFileSync("fixtures/notes.json", "utf8"));
assert.equal(notes.length, 1);
