export { collectEvents, tempWorkspace } from "./helpers.js";
export {
  type RecordedRequest,
  type ScriptContext,
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptStep,
} from "./scripted-model.js";
export * from "./store-conformance/index.js";
