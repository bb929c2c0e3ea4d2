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
} from "./connection.js";
export type { McpExchange } from "./exchange.js";
export { inputSchemaFromJson } from "./json-schema.js";
export { mapAnnotations } from "./mcp-tool.js";
export {
  defaultOAuthDir,
  fileOAuthStore,
  type McpOAuthOptions,
  type McpOAuthRecord,
  type McpOAuthStore,
} from "./oauth.js";
export { type LoopbackAuthorizationOptions, loopbackAuthorization } from "./oauth-loopback.js";
export { LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from "./resource-tools.js";
export { type McpCallDetails, shapeCallResult } from "./result.js";
export {
  type Discovery,
  type DiscoveryFailure,
  type McpPrompt,
  McpServers,
  type McpServersOptions,
  type McpWarning,
} from "./servers.js";
export type { TransportKind } from "./transport.js";
