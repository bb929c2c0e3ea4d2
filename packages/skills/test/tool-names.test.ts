import { mcpToolName } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { commandMatches, grantsOf } from "../src/index.js";

describe("allowed-tools names", () => {
  it("maps Claude-style names to Bridle tools and passes others through", () => {
    const grants = grantsOf([
      "Read",
      "edit",
      "Bash(git diff:*)",
      "Bash(npm test)",
      "mcp__github__get_issue",
      "WebSearch",
      "grep",
    ]);
    expect(Object.fromEntries(grants.tools)).toEqual({
      read_file: { kind: "any" },
      list_dir: { kind: "any" },
      edit_file: { kind: "any" },
      bash: { kind: "commands", patterns: ["git diff:*", "npm test"] },
      bash_start: { kind: "commands", patterns: ["git diff:*", "npm test"] },
      bash_output: { kind: "any" },
      bash_stop: { kind: "any" },
      bash_list: { kind: "any" },
      mcp_github_get_issue: { kind: "any" },
      WebSearch: { kind: "any" },
      grep: { kind: "any" },
    });
    expect(grants.passedThrough).toEqual(["WebSearch"]);
    expect([...grantsOf(["WebFetch"]).tools.keys()]).toEqual(["fetch"]);
    // Plain Bash wins over any pattern; an app may add its own aliases.
    expect(grantsOf(["Bash(ls:*)", "Bash"]).tools.get("bash")).toEqual({ kind: "any" });
    expect(Object.fromEntries(grantsOf(["Read"], { read: ["read_hashline"] }).tools)).toEqual({
      read_hashline: { kind: "any" },
    });
  });

  it("matches Bash specifiers on one plain command only", () => {
    expect(commandMatches("git diff", "git diff:*")).toBe(true);
    expect(commandMatches("git   diff --stat", "git diff:*")).toBe(true);
    expect(commandMatches("git diffx", "git diff:*")).toBe(false);
    expect(commandMatches("npm test", "npm test")).toBe(true);
    expect(commandMatches("npm test -- -u", "npm test")).toBe(false);
    expect(commandMatches("npm run lint", "npm run *")).toBe(true);
    expect(commandMatches('git commit -m "fix it"', "git commit:*")).toBe(true);
    for (const sneaky of [
      "git diff; rm -rf ~",
      "git diff && curl x",
      "git diff | sh",
      "git diff $(rm x)",
      "git diff `rm x`",
      "git diff > /etc/x",
      "git diff\nrm x",
      "git diff *",
    ]) {
      expect(commandMatches(sneaky, "git diff:*"), sneaky).toBe(false);
    }
  });

  it("grants a long MCP tool by the very name tools-mcp gives it (core's rule, with its length hash)", () => {
    const tool = `search_${"issues_and_pull_requests_".repeat(3)}by_label`;
    const grants = grantsOf([`mcp__github-enterprise__${tool}`, "mcp__my.server__read"]);
    const long = mcpToolName("github-enterprise", tool);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp_github-enterprise_search_issues.*_[0-9a-f]{8}$/);
    expect([...grants.tools.keys()]).toEqual([long, "mcp_my_server_read"]);
    expect(grants.passedThrough).toEqual([]);
  });
});
