import { testPostgres } from "@bridle/tooling/postgres";
import { afterAll, beforeAll } from "vitest";

/**
 * A Postgres for the calling test file: BRIDLE_DATABASE_URL's server, else a throwaway one started on
 * loopback before its tests and stopped after. `skip` says why there is none (tests then skip).
 */
export function usePostgres(): { readonly url: string; readonly skip: string } {
  const state = { url: "", skip: "", stop: () => {} };
  beforeAll(async () => {
    const database = await testPostgres();
    Object.assign(state, { url: database.url, skip: database.skip, stop: () => database.stop() });
  }, 120_000);
  afterAll(() => state.stop());
  return {
    get url() {
      return state.url;
    },
    get skip() {
      return state.skip;
    },
  };
}
