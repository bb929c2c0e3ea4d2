// The conformance suites: vitest `describe` blocks, behind their own entry point so that importing
// `@bridle/testing` (the scripted model, fake servers, helpers) never loads a test runner.
export {
  describeProviderConformance,
  type ProviderConformanceOptions,
} from "./provider-conformance/suite.js";
export { describeWithSharedFixtures } from "./shared-fixtures-suite.js";
export { describeSessionStore, type StoreLocation } from "./store-conformance/suite.js";
export { describeToolConformance, type ToolConformanceOptions } from "./tool-conformance/suite.js";
