import assert from "node:assert/strict";
import { buildReport } from "./src/report.mjs";

assert.equal(buildReport([{ amount: 2 }]).total, 2);
console.log("report: ok");
