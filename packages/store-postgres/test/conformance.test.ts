import { describeSessionStore } from "@bridle/testing/vitest";
import { describe } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";

describe.skipIf(skipReason !== "")(`Postgres${skipNote}`, () => {
  describeSessionStore("PostgresSessionStore", async () => {
    const { schema, drop } = freshSchema("conf");
    return {
      open: () => PostgresSessionStore.open({ connectionString: databaseUrl, schema, max: 4 }),
      cleanup: drop,
    };
  });
});
