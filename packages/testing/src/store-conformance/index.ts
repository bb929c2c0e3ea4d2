export { numberedEvent, type SampleTurnOptions, sampleRunEvents } from "./events.js";
export { describeSessionStore, readAll, type StoreLocation } from "./suite.js";
