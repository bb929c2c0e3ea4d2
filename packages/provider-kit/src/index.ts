export { checkedBaseUrl } from "./base-url.js";
export type { CostedModel, DescribedModelOptions, ProviderDescriptor } from "./descriptor.js";
export { type ClassifiedError, classifyError, classifyHttpFailure, type HttpFailure } from "./errors.js";
export { type ModelTable, modelInfoOf } from "./model-table.js";
export { type ModelsDevCopy, type ModelsDevRow, modelTableFromModelsDev } from "./models-dev.js";
export { costOf } from "./pricing.js";
export { envValue, type ProviderConnectionOptions, ProviderModel } from "./provider-model.js";
export { deepFreeze, type EncodedEntries, requestJson } from "./request-json.js";
export {
  defaultRetryPolicy,
  type HeaderSource,
  type RetryPolicy,
  retryAfterMs,
  retryDelay,
  retryPolicy,
  sleep,
} from "./retry.js";
export { type RetryingStreamOptions, retryingStream, type StreamAttempt } from "./stream-runner.js";
export { argumentsObject, degradeForeignReasoning, imageUrl, isNativeReasoning } from "./transcript.js";
export { TurnAssembler } from "./turn-assembler.js";
