import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { call, queueTurns, runCli, toolOutputsSent } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";
import { type TrustScene, trustScene, warningsBesideModelTable } from "./trust-scene.js";

// The trust prompt as a person meets it: bridle in a real terminal (tmux), answered by typing.
const terminal = new TmuxCli("bridle-trust");
let scene: TrustScene | undefined;
afterEach(async () => {
  terminal.kill();
  await scene?.close();
  scene = undefined;
});

const PROMPT = /Apply these settings\? .*\[y\]es, and remember/;
const IGNORED = /warning: ignoring baseUrl, yes from the untrusted workspace config/;

describe("the trust prompt on a terminal", () => {
  it("n ignores the settings for that run and remembers nothing", async () => {
    scene = await trustScene({ user: [{ text: "Answered by the user's server." }], workspace: [] });
    terminal.start(["run", "hello", "--cwd", scene.repo], scene.env);
    const asked = await terminal.waitFor(PROMPT);
    expect(asked).toContain(`baseUrl: "${scene.workspaceConfig.baseUrl}"`);
    expect(asked).toContain("yes: true");
    expect(asked).not.toContain("editFormat"); // harmless: not asked about
    terminal.keys("n", "Enter");
    await terminal.waitFor(/Answered by the user's server\./);
    expect(terminal.screen()).toMatch(/ignoring baseUrl, yes from .* for this run/);
    expect(scene.workspaceServer.requests).toHaveLength(0);
    await expect(
      stat(join(scene.env.XDG_CONFIG_HOME as string, "bridle", "trusted-workspaces.json")),
    ).rejects.toThrow();

    const later = await runCli(["tools", "list", "--cwd", scene.repo], { cwd: scene.dir, env: scene.env });
    expect(later.stderr).toMatch(IGNORED);
  });

  it("y applies and remembers them until the config changes, which asks again; the agent cannot change it", async () => {
    scene = await trustScene({ user: [{ text: "The user's server, after the edit." }], workspace: [] });
    const { repo, env, dir, workspaceServer, userServer } = scene;
    queueTurns(workspaceServer, [
      { text: "Hi from the workspace's server." },
      { text: "Again, unasked." },
      // A run the config is trusted for, in which the agent rewrites the config (it could as well through bash).
      { toolCalls: [call("c1", "read_file", { path: "bridle.config.json" })] },
      {
        toolCalls: [
          call("c2", "write_file", {
            path: "bridle.config.json",
            content: JSON.stringify({ ...scene.workspaceConfig, mcp: "evil.json" }),
          }),
        ],
      },
      { text: "Rewrote the config." },
    ]);
    // The interactive session: the question comes before its own prompt, on the same terminal.
    terminal.start(["--cwd", repo], env);
    await terminal.waitFor(PROMPT);
    terminal.keys("y", "Enter");
    await terminal.waitFor(/› $/m);
    terminal.keys("hello", "Enter");
    await terminal.waitFor(/Hi from the workspace's server\./);
    terminal.kill();
    const trustFile = join(env.XDG_CONFIG_HOME as string, "bridle", "trusted-workspaces.json");
    expect((await stat(trustFile)).mode & 0o777).toBe(0o600);

    // Remembered: no question the second time.
    terminal.start(["run", "again", "--cwd", repo], env);
    await terminal.waitFor(/Again, unasked\./);
    expect(terminal.screen()).not.toMatch(PROMPT);
    terminal.kill();

    // Without a terminal too; the agent tries to edit the config in that run, and is refused: it is protected.
    const editing = await runCli(["run", "tidy the config", "--cwd", repo], { cwd: dir, env });
    expect(editing.code).toBe(0);
    expect(warningsBesideModelTable(editing.stderr)).toEqual([]);
    expect(toolOutputsSent(workspaceServer).join("\n")).toMatch(/Denied: bridle\.config\.json is protected/);
    expect(await readFile(join(repo, "bridle.config.json"), "utf8")).not.toContain("evil.json");
    expect(workspaceServer.requests).toHaveLength(5);
    // Someone else changes it (a pull, another program): the trust was for the old bytes.
    await writeFile(
      join(repo, "bridle.config.json"),
      JSON.stringify({ ...scene.workspaceConfig, mcp: "evil.json" }),
    );

    // The next run finds content nobody trusted.
    const after = await runCli(["run", "hello", "--cwd", repo], { cwd: dir, env });
    expect(after.code).toBe(0);
    expect(after.stderr).toMatch(/warning: ignoring baseUrl, yes, mcp from the untrusted workspace config/);
    expect(workspaceServer.requests).toHaveLength(5);
    expect(userServer.requests).toHaveLength(1);
    expect(after.stdout).toContain("The user's server, after the edit.");

    // Putting the trusted bytes back is trusted again: the answer was about that content.
    await writeFile(join(repo, "bridle.config.json"), JSON.stringify(scene.workspaceConfig, null, 2));
    const restored = await runCli(["tools", "list", "--cwd", repo], { cwd: dir, env });
    expect(warningsBesideModelTable(restored.stderr)).toEqual([]);
  });
});
