import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { untilAborted } from "./in-flight.js";
import { type createOAuthProvider, finishAuthorization } from "./oauth.js";

/**
 * Runs `request`; when the server asks for more scopes (a 403 with `insufficient_scope`), the SDK sends the
 * user to authorize again, and with the code that comes back the request is tried once more.
 */
export async function withStepUp<T>(
  provider: ReturnType<typeof createOAuthProvider> | undefined,
  transport: Transport,
  signal: AbortSignal,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const code = error instanceof UnauthorizedError ? provider?.takeAuthorizationCode?.() : undefined;
    if (
      !code ||
      !(transport instanceof StreamableHTTPClientTransport || transport instanceof SSEClientTransport)
    ) {
      throw error;
    }
    await finishAuthorization(transport, await untilAborted(code, signal));
    return request();
  }
}
