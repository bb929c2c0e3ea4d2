/**
 * Why the recipe could not build the agent: `invalid_settings` when the settings contradict each other or
 * name what does not exist (a front door shows it as a usage error), `setup_failed` when a part would not
 * start (the shell, a provider's client, a store, MCP servers that had to be ready).
 */
export type CodingAgentErrorCode = "invalid_settings" | "setup_failed";

export class CodingAgentError extends Error {
  override readonly name = "CodingAgentError";
  readonly code: CodingAgentErrorCode;

  constructor(code: CodingAgentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
