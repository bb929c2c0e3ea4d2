import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claudeSettingsPaths, hooksFromSettings, readClaudeHookSettings } from "../src/index.js";
import { matcherMatches } from "../src/matcher.js";
import { agent, reports, script, sentText } from "./setup.js";

let dir: string;
let cleanup: () => Promise<void>;
let home: string;
let project: string;
const stops: (() => Promise<void> | void)[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-settings-"));
  home = join(dir, "home");
  project = join(dir, "project");
  await mkdir(join(home, ".claude"), { recursive: true });
  await mkdir(join(project, ".claude"), { recursive: true });
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await cleanup();
});

// Written the way Claude Code's docs show it, with a hook type and an event Bridle does not run.
const userSettings = (guard: string) => `{
  "permissions": { "allow": ["Bash(npm run test:*)"] },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash|bash",
        "hooks": [
          { "type": "command", "command": "${guard}", "timeout": 10 }
        ]
      },
      {
        "matcher": "mcp__github__.*",
        "hooks": [{ "type": "http", "url": "http://localhost:8080/hooks" }]
      }
    ],
    "PreCompact": [
      { "matcher": "auto", "hooks": [{ "type": "command", "command": "echo compacting" }] }
    ]
  }
}
`;

describe("a Claude Code settings file, used unchanged", () => {
  it("reads the user's ~/.claude/settings.json and its hooks guard the run", async () => {
    const guard = await script(
      home,
      "no-force-push.sh",
      `#!/bin/bash
if grep -q 'push --force'; then
  echo "force pushes are off limits (from \${CLAUDE_PROJECT_DIR})" >&2
  exit 2
fi
`,
    );
    await writeFile(join(home, ".claude", "settings.json"), userSettings(guard));
    // The workspace's own file is not read unless its scope is asked for (it belongs to an untrusted repo).
    await writeFile(
      join(project, ".claude", "settings.json"),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "exit 2" }] }] } }),
    );
    const { hooks, sources } = await readClaudeHookSettings({ cwd: project, home });
    expect(sources.map((source) => source.scope)).toEqual(["user"]);
    expect(Object.keys(hooks)).toEqual(["PreToolUse", "PreCompact"]);

    const seen = reports();
    const scripts = hooksFromSettings(hooks, { cwd: project, onReport: seen.onReport });
    expect(seen.list.map((r) => `${r.event}:${r.kind}`)).toEqual(["PreToolUse:unsupported"]);
    const { model, harness, stop } = await agent(project, scripts.hooks, [
      { toolCalls: [{ name: "bash", arguments: { command: "git push --force origin main" } }] },
      { text: "understood" },
    ]);
    stops.push(stop);
    const result = await harness.run({ prompt: "push it" });
    expect(result.stopReason).toBe("completed");
    expect(sentText(model.requests[1]?.messages)).toContain(`force pushes are off limits (from ${project})`);
  });

  it("reads the project and local files when their scopes are asked for, joining each event's groups", async () => {
    await writeFile(join(home, ".claude", "settings.json"), userSettings("/bin/true"));
    await writeFile(
      join(project, ".claude", "settings.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "a" }] }] },
      }),
    );
    await writeFile(
      join(project, ".claude", "settings.local.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command: "b" }] }] },
      }),
    );
    const { hooks, sources } = await readClaudeHookSettings({
      cwd: project,
      home,
      scopes: ["user", "project", "local"],
    });
    expect(sources.map((source) => source.scope)).toEqual(["user", "project", "local"]);
    expect(hooks.PreToolUse?.map((group) => group.matcher)).toEqual([
      "Bash|bash",
      "mcp__github__.*",
      "Write",
      "Edit",
    ]);
  });

  it("names the file when it is not JSON or its hooks are not Claude Code's shape", async () => {
    const path = join(home, ".claude", "settings.json");
    await writeFile(path, "{ hooks: ");
    await expect(readClaudeHookSettings({ cwd: project, home })).rejects.toMatchObject({
      code: "hook_settings_invalid",
      message: expect.stringContaining(path),
    });
    await writeFile(path, JSON.stringify({ hooks: { PreToolUse: { matcher: "Bash" } } }));
    await expect(readClaudeHookSettings({ cwd: project, home })).rejects.toMatchObject({
      code: "hook_settings_invalid",
      message: expect.stringContaining("PreToolUse"),
    });
    expect(await readFile(path, "utf8")).toContain("Bash");
  });

  it("lists Claude Code's documented locations", () => {
    expect(claudeSettingsPaths({ cwd: "/p", home: "/h", platform: "linux" })).toEqual([
      { scope: "managed", path: "/etc/claude-code/managed-settings.json" },
      { scope: "user", path: "/h/.claude/settings.json" },
      { scope: "project", path: "/p/.claude/settings.json" },
      { scope: "local", path: "/p/.claude/settings.local.json" },
    ]);
  });
});

describe("matchers", () => {
  it.each([
    ["", "bash", true],
    ["*", "Write", true],
    ["Bash", "Bash", true],
    ["Bash", "BashOutput", false],
    ["Edit|Write", "Write", true],
    ["Edit|Write", "MultiEdit", false],
    ["Notebook.*", "NotebookEdit", true],
    ["mcp__memory__.*", "mcp__memory__create_entities", true],
    ["mcp__memory__.*", "mcp__github__search", false],
    ["[unclosed", "[unclosed", false],
  ])("%j against %j is %s", (matcher, subject, expected) => {
    expect(matcherMatches(matcher, subject)).toBe(expected);
  });
});
