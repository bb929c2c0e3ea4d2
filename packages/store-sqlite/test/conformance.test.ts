import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { describeSessionStore } from "@bridle/testing/vitest";
import { SqliteSessionStore } from "../src/index.js";

describeSessionStore("SqliteSessionStore", async () => {
  const { dir, cleanup } = await tempWorkspace("bridle-sqlite-");
  return { open: () => SqliteSessionStore.open({ path: join(dir, "sessions.db") }), cleanup };
});
