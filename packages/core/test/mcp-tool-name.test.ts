import { describe, expect, it } from "vitest";
import { mcpToolName } from "../src/index.js";

describe("mcpToolName", () => {
  it("prefixes, sanitizes and bounds names", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp_github_create_issue");
    expect(mcpToolName("my server", "files/read.all")).toBe("mcp_my_server_files_read_all");
    expect(mcpToolName("é", "ß")).toBe("mcp____");
    expect(mcpToolName("", "")).toBe("mcp____");
  });

  it("ends a name over 64 characters with a hash of the full names, so long names stay distinct", () => {
    const long = mcpToolName("server", "x".repeat(100));
    expect(long).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(long.startsWith("mcp_server_xxxx")).toBe(true);
    expect(mcpToolName("server", `${"x".repeat(99)}y`)).not.toBe(long);
    // Exactly 64 characters is kept whole.
    const edge = `${"y".repeat(64 - "mcp_s_".length)}`;
    expect(mcpToolName("s", edge)).toBe(`mcp_s_${edge}`);
    expect(mcpToolName("s", `${edge}z`)).toHaveLength(64);
    // The hash covers the names as given, so sanitizing to the same text does not make them collide.
    expect(mcpToolName("a.b", "x".repeat(80))).not.toBe(mcpToolName("a_b", "x".repeat(80)));
  });
});
