import { describe, expect, it } from "vitest";
import { conventionProviderName, parseMcpToolName } from "../src/index.js";

describe("MCP tool names", () => {
  it("splits mcp_{server}_{tool}", () => {
    expect(parseMcpToolName("mcp_github_create_issue")).toEqual({
      method: "tools/call",
      server: "github",
      tool: "create_issue",
    });
    expect(parseMcpToolName("read_file")).toBeUndefined();
    expect(parseMcpToolName("mcp_")).toBeUndefined();
    expect(parseMcpToolName("mcp_github")).toBeUndefined();
  });

  it("uses the configured server names when they hold underscores or other characters", () => {
    const servers = ["github", "github_enterprise", "my.server"];
    expect(parseMcpToolName("mcp_github_enterprise_search", servers)).toEqual({
      method: "tools/call",
      server: "github_enterprise",
      tool: "search",
    });
    expect(parseMcpToolName("mcp_github_search", servers)?.server).toBe("github");
    expect(parseMcpToolName("mcp_my_server_ping", servers)).toEqual({
      method: "tools/call",
      server: "my.server",
      tool: "ping",
    });
  });

  it("knows the bridge's resource tools", () => {
    expect(parseMcpToolName("mcp_list_resources")).toEqual({ method: "resources/list" });
    expect(parseMcpToolName("mcp_read_resource")).toEqual({ method: "resources/read" });
  });
});

describe("provider names", () => {
  it("maps adapter ids to the convention's well-known provider names", () => {
    expect(conventionProviderName("openai-chat")).toBe("openai");
    expect(conventionProviderName("openai")).toBe("openai");
    expect(conventionProviderName("anthropic")).toBe("anthropic");
    expect(conventionProviderName("ollama")).toBe("ollama");
  });
});
