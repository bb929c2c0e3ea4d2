/**
 * What is wrong with a tool's `x-mcp-header` declarations (SEP-2243), or undefined when nothing is: a
 * client must not call a tool whose declarations are invalid, so such a tool is left out. Each names the
 * HTTP header (`Mcp-Param-{name}`) a top-level argument is mirrored into on 2026-07-28 over HTTP: a
 * non-empty token, unique whatever its case, on a string, integer or boolean argument.
 */
export function invalidHeaderParams(inputSchema: unknown): string | undefined {
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (properties === null || typeof properties !== "object") return undefined;
  const seen = new Set<string>();
  for (const [argument, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (schema === null || typeof schema !== "object" || !("x-mcp-header" in schema)) continue;
    const header = (schema as Record<string, unknown>)["x-mcp-header"];
    const where = `x-mcp-header of "${argument}"`;
    if (typeof header !== "string" || header.length === 0) return `${where} is not a non-empty string`;
    if (!HTTP_TOKEN.test(header)) return `${where} (${JSON.stringify(header)}) is not an HTTP header name`;
    const type = (schema as { type?: unknown }).type;
    if (type !== "string" && type !== "integer" && type !== "boolean") {
      return `${where} is on a ${JSON.stringify(type ?? "untyped")} argument; only string, integer and boolean ones can be headers`;
    }
    const key = header.toLowerCase();
    if (seen.has(key)) return `${where} (${header}) names a header another argument already has`;
    seen.add(key);
  }
  return undefined;
}

// RFC 9110's token: visible ASCII but separators, so no space, colon, control or non-ASCII character.
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
