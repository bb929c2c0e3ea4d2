/** The variable test files read after `setup`: a connection string (empty when Postgres could not start). */
export declare const URL_VARIABLE = "BRIDLE_TEST_DATABASE_URL";
/** Set instead of URL_VARIABLE: why there is no Postgres for the tests. */
export declare const SKIP_VARIABLE = "BRIDLE_TEST_DATABASE_SKIP";
export interface LocalPostgres {
  readonly url: string;
  stop(): void;
}
/** A fresh cluster in a temp dir on a free loopback port, or the reason it cannot start. */
export declare function startLocalPostgres(): Promise<LocalPostgres | { readonly skip: string }>;
/** BRIDLE_DATABASE_URL's server, else a local one started for the caller (stop it after); `skip` says why neither. */
export declare function testPostgres(): Promise<{
  readonly url: string;
  readonly skip: string;
  stop(): void;
}>;
/** vitest globalSetup: BRIDLE_DATABASE_URL's server, else a local one; sets URL_VARIABLE or SKIP_VARIABLE. */
export declare function setup(): Promise<() => void>;
