export { type AcpMcpServer, type AcpNameValue, fromAcpSession } from "./acp-servers.js";
export type { McpSourceFact, McpToolSource } from "./background.js";
export {
  type HttpServerConfig,
  type McpConfigInput,
  type McpServerConfig,
  type McpServerConfigInput,
  mcpConfigSchema,
  type ParseOptions,
  parseMcpConfig,
  type StdioServerConfig,
} from "./config.js";
export type {
  ConnectionState,
  ConnectionStatus,
  McpElicitation,
  McpSamplingRequest,
} from "./connection-settings.js";
export { declaredInputSchema } from "./declared-schema.js";
export type { McpExchange } from "./exchange.js";
export { inputSchemaFromJson } from "./json-schema.js";
export { mapAnnotations } from "./mcp-tool.js";
export {
  defaultOAuthDir,
  fileOAuthStore,
  type McpAuthorizationAnswer,
  type McpOAuthOptions,
  type McpOAuthRecord,
  type McpOAuthStore,
} from "./oauth.js";
export { type LoopbackAuthorizationOptions, loopbackAuthorization } from "./oauth-loopback.js";
export type { WorkloadIdentity } from "./oauth-workload.js";
export { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from "./resource-tools.js";
export { type McpCallDetails, shapeCallResult } from "./result.js";
export { type Discovery, type McpPrompt, McpServers, type McpServersOptions } from "./servers.js";
export type { ToolFilter } from "./tool-filter.js";
export type { DiscoveryFailure, McpWarning } from "./toolset.js";
export type { TransportKind } from "./transport.js";
