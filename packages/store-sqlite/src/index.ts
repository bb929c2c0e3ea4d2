export { MIGRATIONS } from "./migrations.js";
export { type SqliteDurability, SqliteSessionStore, type SqliteStoreOptions } from "./sqlite-store.js";
