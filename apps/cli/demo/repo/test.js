import assert from "node:assert/strict";
import { applyDiscount, shipping, subtotal, total } from "./src/cart.js";

const items = [
  { name: "notebook", price: 1250, quantity: 2 },
  { name: "pen", price: 199, quantity: 3 },
];

assert.equal(subtotal(items), 3097);
assert.equal(applyDiscount(10000, 15), 8500);
assert.equal(shipping(3097), 499);
assert.equal(shipping(5000), 0);
assert.equal(total(items), 3596, "a small order pays shipping on top");
assert.equal(total([{ name: "desk", price: 20000, quantity: 1 }], 10), 18000);
console.log("all cart tests passed");
