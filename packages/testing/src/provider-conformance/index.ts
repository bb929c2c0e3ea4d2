export { formatTimings, type InterleavedTiming, timeInterleaved } from "./interleaved.js";
export { collectModelEvents, expectOneTerminal, type ModelRun } from "./model-run.js";
export { type ReplayResult, replayRecordedStream } from "./replay.js";
