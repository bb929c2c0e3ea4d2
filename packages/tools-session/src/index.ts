export {
  FolderMemory,
  MEMORY_KEY,
  type MemoryEntry,
  type MemoryHit,
  type MemoryStore,
} from "./memory-store.js";
export {
  MAX_MEMORY_CHARS,
  memorySearch,
  memoryTools,
  type ReadMemoryDetails,
  readMemory,
  writeMemory,
} from "./memory-tools.js";
export { sessionHistory, sessionList, sessionSearch, sessionTools } from "./session-tools.js";
