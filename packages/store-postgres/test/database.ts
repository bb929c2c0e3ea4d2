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
      await withClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
}

/** Runs `work` on a connection of its own, closed after. */
export async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The versions recorded in a schema's schema_migrations, in order. */
export function migrationVersions(schema: string): Promise<number[]> {
  return withClient(async (client) => {
    const { rows } = await client.query<{ version: number }>(
      `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
    );
    return rows.map((row) => row.version);
  });
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
