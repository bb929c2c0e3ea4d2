import { join } from "node:path";
import { describeSessionStore, tempWorkspace } from "@bridle/testing";
import { SqliteSessionStore } from "../src/index.js";

describeSessionStore("SqliteSessionStore", async () => {
  const { dir, cleanup } = await tempWorkspace("bridle-sqlite-");
  return { open: () => SqliteSessionStore.open({ path: join(dir, "sessions.db") }), cleanup };
});
