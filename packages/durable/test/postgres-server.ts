// The tests' throwaway Postgres (vitest globalSetup), shared with store-postgres's tests.
export { SKIP_VARIABLE, setup, URL_VARIABLE } from "@bridle/tooling/postgres";
