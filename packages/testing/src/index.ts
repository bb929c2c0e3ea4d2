export * from "./fake-servers/index.js";
export { collectEvents, tempWorkspace } from "./helpers.js";
export * from "./provider-conformance/index.js";
export {
  type RecordedRequest,
  type ScriptContext,
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptRequest,
  type ScriptStep,
} from "./scripted-model.js";
export { type SharedFixtures, sharedFixtures } from "./shared-fixtures.js";
export * from "./store-conformance/index.js";
export * from "./tool-conformance/index.js";
