import assert from "node:assert/strict";
import { slugify } from "./src/slug.mjs";

assert.equal(slugify("Hello, World!"), "hello-world");
assert.equal(slugify("  a b  "), "a-b");
console.log("slug: ok");
