export { bodyText, type CappedBody, readCapped } from "./body.js";
export { createFetchTool, type FetchDetails, type FetchToolOptions } from "./fetch-tool.js";
export { HostAllowlist } from "./host-allowlist.js";
export { htmlToText } from "./html-text.js";
