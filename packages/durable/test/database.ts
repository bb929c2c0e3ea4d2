// Where the tests' Postgres is (postgres-server.ts), and schema names no other test uses.
import { randomBytes } from "node:crypto";
import { SKIP_VARIABLE, URL_VARIABLE } from "./postgres-server.js";

export const databaseUrl = process.env[URL_VARIABLE] ?? "";
export const skipReason = databaseUrl ? "" : (process.env[SKIP_VARIABLE] ?? "no Postgres for the tests");
if (skipReason) console.warn(`durable tests skipped: ${skipReason}`);
/** Appended to a suite's name, so a skipped run says why. */
export const skipNote = skipReason ? ` (skipped: ${skipReason})` : "";

/** A fresh schema name: DBOS's tables go there, the sessions in `<name>_sessions`. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}
