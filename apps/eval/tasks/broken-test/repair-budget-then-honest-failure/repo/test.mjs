import assert from "node:assert/strict";
import { total } from "./src/price.mjs";

assert.equal(total([{ price: 1.1, qty: 3 }]), 3.3);
// Currency formatting is a separate, unfinished feature (issue #12).
assert.equal(total([{ price: 0.5, qty: 1 }], { currency: "EUR" }), "0.50 EUR");
console.log("price: ok");
