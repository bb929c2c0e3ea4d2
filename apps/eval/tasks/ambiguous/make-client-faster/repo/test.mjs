import assert from "node:assert/strict";
import { getUser } from "./src/client.mjs";

const user = await getUser(async () => ({ json: async () => ({ name: "a" }) }), 1);
assert.equal(user.name, "a");
console.log("client: ok");
