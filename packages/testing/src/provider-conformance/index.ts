export { collectModelEvents, expectOneTerminal, type ModelRun } from "./model-run.js";
export { describeProviderConformance, type ProviderConformanceOptions } from "./suite.js";
