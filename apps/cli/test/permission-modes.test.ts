import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { BubblewrapRunner } from "@bridle/tools-shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli, toolOutputsSent } from "./cli-harness.js";

// `bridle run` as a script runs it: no terminal, no --yes, the real built CLI against the loopback fake
// provider. In the default mode under bubblewrap the sandbox is the boundary: honest work runs unasked,
// what the sandbox withholds fails with the command's own error, and a run outside it is refused.
const bwrap = await BubblewrapRunner.probe();

let dir: string;
let repo: string;
let outside: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-modes-"));
  repo = join(dir, "repo");
  outside = join(dir, "outside");
  await mkdir(join(repo, "test"), { recursive: true });
  await mkdir(outside);
  await writeFile(
    join(repo, "package.json"),
    JSON.stringify({
      name: "tiny",
      private: true,
      scripts: { test: "node --test", build: "node build.mjs" },
    }),
  );
  await writeFile(
    join(repo, "test", "add.test.mjs"),
    'import { test } from "node:test";\nimport assert from "node:assert";\ntest("adds", () => assert.equal(1 + 1, 2));\n',
  );
  await writeFile(
    join(repo, "build.mjs"),
    'import { mkdirSync, writeFileSync } from "node:fs";\nmkdirSync("dist", { recursive: true });\nwriteFileSync("dist/out.js", "built\\n");\n',
  );
  await writeFile(join(repo, "notes.txt"), "old\n");
  execFileSync("git", ["init", "-q", repo]);
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function args(s: FakeProviderServer, ...more: string[]): string[] {
  return [
    "--provider",
    "openai",
    "--model",
    "m",
    "--profile",
    "generic",
    "--no-coding",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--cwd",
    repo,
    ...more,
  ];
}

/** The tool results the model was sent, by call id, parsed when they are bash's JSON. */
function results(s: FakeProviderServer): Record<string, string> {
  const last = s.requests.at(-1)?.body as { input?: { type?: string; call_id?: string; output?: unknown }[] };
  const found: Record<string, string> = {};
  for (const item of last?.input ?? []) {
    if (item.type === "function_call_output" && item.call_id)
      found[item.call_id] = typeof item.output === "string" ? item.output : JSON.stringify(item.output);
  }
  return found;
}

describe("bridle run in the workspace mode, no terminal, no --yes", () => {
  it.skipIf(!bwrap.available)(
    `runs sed -i, the tests and a build in the sandbox unasked; writes outside and to .git/config fail with the command's reason; escalation is refused${bwrap.available ? "" : ` — SKIPPED: ${bwrap.reason}`}`,
    async () => {
      const gitConfig = readFileSync(join(repo, ".git", "config"), "utf8");
      server = await fakeOpenAI([
        {
          toolCalls: [
            call("sed", "bash", { command: "sed -i s/old/new/ notes.txt" }),
            call("test", "bash", { command: "npm test" }),
            call("build", "bash", { command: "npm run build" }),
            call("outside", "bash", { command: `touch ${join(outside, "x")}` }),
            call("git", "bash", { command: "echo '[core]' >> .git/config" }),
            call("escalate", "bash", {
              command: `ls ${outside}`,
              sandbox_permissions: "require_escalated",
              justification: "to see the folder beside the repository",
            }),
          ],
        },
        { text: "done" },
      ]);
      const run = await runCli(["run", "work", ...args(server, "--sandbox", "bwrap")], { cwd: dir, env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain("permission mode workspace: the sandbox is the boundary");
      const sent = results(server);
      const bash = (id: string) => JSON.parse(sent[id] as string) as { exit_code: number; stderr: string };

      expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("new\n");
      expect(bash("sed").exit_code).toBe(0);
      expect(bash("test").exit_code, sent.test).toBe(0);
      expect(bash("build").exit_code, sent.build).toBe(0);
      expect(readFileSync(join(repo, "dist", "out.js"), "utf8")).toBe("built\n");

      // Withheld by the sandbox: the command ran and failed, and the model reads the command's own error.
      expect(bash("outside").exit_code).not.toBe(0);
      expect(bash("outside").stderr).toMatch(/touch: /);
      expect(existsSync(join(outside, "x"))).toBe(false);
      expect(bash("git").exit_code).not.toBe(0);
      expect(bash("git").stderr).toMatch(/\.git\/config/);
      expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe(gitConfig);

      // Nobody can approve leaving the sandbox: refused, with a way forward for the model.
      expect(sent.escalate).toMatch(/outside the sandbox needs a person's approval/);
      expect(sent.escalate).toMatch(/leave out sandbox_permissions/);
      expect(toolOutputsSent(server)).toHaveLength(6);

      // The mode in force is recorded in the session, on the event stream.
      const sessions = join(dir, "data", "bridle", "jsonl", "sessions");
      const file = readdirSync(sessions).find((name) => name.endsWith(".jsonl")) as string;
      const fact = readFileSync(join(sessions, file), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { event?: { type?: string; kind?: string; data?: unknown } })
        .find((line) => line.event?.type === "fact" && line.event.kind === "shell.permissions");
      expect(fact?.event?.data).toMatchObject({ mode: "workspace", sandboxed: true, runner: "bubblewrap" });
    },
    180_000,
  );

  it("without a sandbox the strict policy is the boundary: a write asks, and with nobody to answer it is refused", async () => {
    server = await fakeOpenAI([
      {
        toolCalls: [
          call("read", "bash", { command: "cat notes.txt" }),
          call("sed", "bash", { command: "sed -i s/old/new/ notes.txt" }),
        ],
      },
      { text: "done" },
    ]);
    const run = await runCli(["run", "work", ...args(server, "--sandbox", "off")], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("permission mode workspace, no sandbox: the command policy is the boundary");
    const sent = results(server);
    expect(JSON.parse(sent.read as string).stdout).toBe("old\n");
    expect(sent.sed).toMatch(/no terminal to ask for approval/);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("old\n");
  });

  it("read-only offers no file writer, refuses writing commands even with --yes; full-access says so and runs them", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("sed", "bash", { command: "sed -i s/old/new/ notes.txt" })] },
      { text: "done" },
    ]);
    const readOnly = await runCli(
      ["run", "work", ...args(server, "--permission-mode", "read-only", "--yes")],
      {
        cwd: dir,
        env,
      },
    );
    expect(readOnly.code, readOnly.stderr).toBe(0);
    expect(readOnly.stderr).toContain("permission mode read-only");
    const tools =
      (server.requests[0]?.body as { tools?: { name?: string }[] } | undefined)?.tools?.map((t) => t.name) ??
      [];
    expect(tools).toContain("bash");
    expect(tools).toContain("read_file");
    expect(tools).not.toContain("write_file");
    expect(tools).not.toContain("edit_file");
    expect(results(server).sed).toMatch(/the session is read-only/);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("old\n");
    await server.close();

    server = await fakeOpenAI([
      { toolCalls: [call("sed", "bash", { command: "sed -i s/old/new/ notes.txt" })] },
      { text: "done" },
    ]);
    const full = await runCli(["run", "work", ...args(server, "--permission-mode", "full-access")], {
      cwd: dir,
      env,
    });
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).toContain("permission mode full-access: no sandbox and no approvals");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("new\n");
    const refused = await runCli(
      ["run", "work", ...args(server, "--permission-mode", "full-access", "--sandbox", "bwrap")],
      { cwd: dir, env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/full-access runs commands without a sandbox/);
  });

  it("ask mode asks before a file tool writes too; --yes answers it", async () => {
    const turns = () => [
      { toolCalls: [call("w", "write_file", { path: "new.txt", content: "hi\n" })] },
      { text: "done" },
    ];
    server = await fakeOpenAI(turns());
    const asked = await runCli(
      ["run", "work", ...args(server, "--permission-mode", "ask", "--sandbox", "off")],
      {
        cwd: dir,
        env,
      },
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect(results(server).w).toMatch(/no terminal to ask for approval/);
    expect(existsSync(join(repo, "new.txt"))).toBe(false);
    await server.close();
    server = await fakeOpenAI(turns());
    const yes = await runCli(
      ["run", "work", ...args(server, "--permission-mode", "ask", "--sandbox", "off", "--yes")],
      { cwd: dir, env },
    );
    expect(yes.code, yes.stderr).toBe(0);
    expect(readFileSync(join(repo, "new.txt"), "utf8")).toBe("hi\n");
  });

  it("takes the user's deny rules from their config, and refuses an allow rule for a shell", async () => {
    await mkdir(join(dir, "config", "bridle"), { recursive: true });
    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ permissions: { deny: ["sed"] } }),
    );
    server = await fakeOpenAI([
      { toolCalls: [call("sed", "bash", { command: "sed -i s/old/new/ notes.txt" })] },
      { text: "done" },
    ]);
    const run = await runCli(["run", "work", ...args(server, "--permission-mode", "full-access")], {
      cwd: dir,
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(results(server).sed).toMatch(/your deny rule "sed" matches/);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("old\n");

    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ permissions: { allow: ["bash"] } }),
    );
    const bad = await runCli(["run", "work", ...args(server)], { cwd: dir, env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/allow bash.*refused.*shell/);
  });
});
