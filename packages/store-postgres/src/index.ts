export { MIGRATIONS } from "./migrations.js";
export { PostgresSessionStore, type PostgresStoreOptions } from "./postgres-store.js";
