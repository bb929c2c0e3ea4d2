// The tests' throwaway Postgres (vitest globalSetup): the starter shared with other packages' tests.
export { SKIP_VARIABLE, setup, URL_VARIABLE } from "@bridle/tooling/postgres";
