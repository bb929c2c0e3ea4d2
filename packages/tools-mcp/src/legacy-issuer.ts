import { IssuerMismatchError } from "@modelcontextprotocol/client";

/** The first IssuerMismatchError in `error`'s causes (and an AggregateError's errors), if any. */
export function issuerMismatchIn(error: unknown, depth = 0): IssuerMismatchError | undefined {
  if (error instanceof IssuerMismatchError) return error;
  if (depth > 8 || error === null || typeof error !== "object") return undefined;
  const nested = [
    (error as { cause?: unknown }).cause,
    ...(error instanceof AggregateError ? error.errors : []),
  ];
  for (const inner of nested) {
    const found = issuerMismatchIn(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Whether an authorization server's metadata may name an issuer other than the URL it was found at: only
 * when the MCP server's own origin is its authorization server (the 2025-03-26 arrangement, metadata at
 * the origin's root) and the issuer it names is a path of that same origin. Servers of that revision
 * commonly did this; the check RFC 8414 §3.3 asks for exists to stop one party's metadata speaking for
 * another's issuer, which a single origin speaking for itself cannot do. Any other mismatch stands.
 */
export function tolerableLegacyIssuer(error: unknown, serverUrl: URL): boolean {
  const mismatch = issuerMismatchIn(error);
  if (mismatch?.kind !== "metadata" || !mismatch.expected || !mismatch.received) return false;
  const origin = (value: string) => {
    try {
      return new URL(value).origin;
    } catch {
      return undefined;
    }
  };
  const expected = new URL(mismatch.expected);
  return (
    expected.origin === serverUrl.origin &&
    (expected.pathname === "/" || expected.pathname === "") &&
    origin(mismatch.received) === serverUrl.origin
  );
}
