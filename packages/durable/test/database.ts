// Where the tests' Postgres is (postgres-server.ts), and schema names no other test uses.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SKIP_VARIABLE, URL_VARIABLE } from "./postgres-server.js";

export const databaseUrl = process.env[URL_VARIABLE] ?? "";
export const skipReason = databaseUrl ? "" : (process.env[SKIP_VARIABLE] ?? "no Postgres for the tests");
if (skipReason) console.warn(`durable tests skipped: ${skipReason}`);
/** Appended to a suite's name, so a skipped run says why. */
export const skipNote = skipReason ? ` (skipped: ${skipReason})` : "";

// The approval secret that seals runs comes from the user's config folder, as for a user: this test
// file's processes (the workers inherit the environment) share a throwaway one, never the real one.
const configHome = mkdtempSync(join(tmpdir(), "bridle-durable-config-"));
process.env.XDG_CONFIG_HOME = configHome;
process.on("exit", () => rmSync(configHome, { recursive: true, force: true }));

/** A fresh schema name: DBOS's tables go there, the sessions in `<name>_sessions`. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString("hex")}`;
}
