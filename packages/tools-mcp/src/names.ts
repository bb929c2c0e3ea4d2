import { createHash } from "node:crypto";

const MAX_NAME = 64;

/** Anything outside the characters tool names allow becomes "_" (dots, spaces, slashes, non-ASCII). */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return cleaned.length === 0 ? "_" : cleaned;
}

/**
 * The Bridle name of a server's tool: `mcp_{server}_{tool}`, sanitized to ^[A-Za-z0-9_-]{1,64}$. A name that
 * would be longer keeps its first characters and ends with a hash of the full name, so two long names that
 * share a prefix still differ.
 */
export function bridleToolName(server: string, tool: string): string {
  const full = `mcp_${sanitizeNamePart(server)}_${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}
