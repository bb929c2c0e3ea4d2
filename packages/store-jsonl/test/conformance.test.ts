import { describeSessionStore, tempWorkspace } from "@bridle/testing";
import { JsonlSessionStore } from "../src/index.js";

describeSessionStore("JsonlSessionStore", async () => {
  const { dir, cleanup } = await tempWorkspace("bridle-jsonl-");
  return { open: () => JsonlSessionStore.open({ dir }), cleanup };
});
