import { tempWorkspace } from "@bridle/testing";
import { describeSessionStore } from "@bridle/testing/vitest";
import { JsonlSessionStore } from "../src/index.js";

describeSessionStore("JsonlSessionStore", async () => {
  const { dir, cleanup } = await tempWorkspace("bridle-jsonl-");
  return { open: () => JsonlSessionStore.open({ dir }), cleanup };
});
