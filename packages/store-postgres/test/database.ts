// Where the tests' Postgres is (see postgres-server.ts), and a fresh schema per test: a new empty store.

import { randomBytes } from "node:crypto";
import { childBundleOptions } from "@bridle/testing";
import pg from "pg";
import { SKIP_VARIABLE, URL_VARIABLE } from "./postgres-server.js";

export const databaseUrl = process.env[URL_VARIABLE] ?? "";
export const skipReason = databaseUrl ? "" : (process.env[SKIP_VARIABLE] ?? "no Postgres for the tests");
if (skipReason) console.warn(`store-postgres tests skipped: ${skipReason}`);
/** Appended to a suite's name, so a skipped run says why. */
export const skipNote = skipReason ? ` (skipped: ${skipReason})` : "";

/** A schema name no other test uses, and a way to drop it after. */
export function freshSchema(prefix = "t"): { schema: string; drop: () => Promise<void> } {
  const schema = `${prefix}_${randomBytes(6).toString("hex")}`;
  return {
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * esbuild options for a child-process script: node-postgres is CommonJS and requires Node's built-ins,
 * which an ESM bundle can only do through a `require` made for it.
 */
export function childBundle(
  entry: string,
  outfile: string,
): ReturnType<typeof childBundleOptions> & {
  banner: { js: string };
} {
  return {
    ...childBundleOptions(entry, outfile),
    banner: {
      js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
    },
  };
}
