export { type JsonlDurability, JsonlSessionStore, type JsonlStoreOptions } from "./jsonl-store.js";
