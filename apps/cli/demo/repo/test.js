import assert from "node:assert/strict";
import { applyDiscount, shipping, subtotal, total } from "./src/cart.js";

const items = [
  { name: "notebook", price: 1250, quantity: 2 },
  { name: "pen", price: 199, quantity: 3 },
];

const tests = {
  "subtotal adds price times quantity": () => assert.equal(subtotal(items), 3097),
  "a discount is a percentage off": () => assert.equal(applyDiscount(10000, 15), 8500),
  "small orders pay shipping": () => assert.equal(shipping(3097), 499),
  "orders from 50.00 ship free": () => assert.equal(shipping(5000), 0),
  "a small order pays shipping on top": () => assert.equal(total(items), 3596),
  "a discounted large order ships free": () =>
    assert.equal(total([{ name: "desk", price: 20000, quantity: 1 }], 10), 18000),
};

// Each failure on one line with its assertion (expected and actual), the count last.
let failed = 0;
for (const [name, test] of Object.entries(tests)) {
  try {
    test();
    console.log(`ok   ${name}`);
  } catch (error) {
    failed++;
    const detail =
      error instanceof assert.AssertionError
        ? `expected ${error.expected}, got ${error.actual}`
        : String(error);
    console.log(`FAIL ${name}: ${detail}`);
  }
}
if (failed > 0) {
  console.log(`${failed} of ${Object.keys(tests).length} cart tests failed`);
  process.exitCode = 1;
} else {
  console.log("all cart tests passed");
}
