export { childBundleOptions } from "./child-bundle.js";
export {
  type CrashTrialsOptions,
  type CrashTrialsReport,
  crashEvent,
  runCrashTrials,
  runCrashWriter,
} from "./crash.js";
export { numberedEvent, type SampleTurnOptions, sampleRunEvents } from "./events.js";
export { readAll } from "./read-all.js";
