export { aiSdk } from "./descriptor.js";
export { AISDKModel, type AISDKModelOptions, createAISDKModel } from "./model.js";
export { type AISDKToolsOptions, toAISDKTools } from "./tools.js";
