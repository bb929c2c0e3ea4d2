import { spawn } from "node:child_process";
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { FakeProviderServer, openaiResponsesFormat } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsumerProject } from "../src/consumer-project.js";
import { packPackages } from "../src/pack.js";
import { runtimeClosure } from "../src/workspace-packages.js";

// What a user gets from `npm install @bridle/cli` once it is published: the CLI and every @bridle package
// it needs, from their packed tarballs, in a folder with nothing of the workspace around it.
let root: string;
let project: ConsumerProject;
let npmWarnings: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "bridle-cli-consumer-"));
  const destination = join(root, "tarballs");
  await mkdir(destination);
  const tarballs = await packPackages(await runtimeClosure(["@bridle/cli"]), destination);
  project = new ConsumerProject(join(root, "app"), tarballs);
  ({ warnings: npmWarnings } = await project.install(["@bridle/cli"]));
}, 300_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The installed `bridle` bin, started as a shell would (its shebang picks `node` from PATH). */
function bridle(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  const bin = join(project.dir, "node_modules", ".bin", "bridle");
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: options.cwd,
      env: {
        // The Node running these tests first: the shebang's `env node` must find a Node ≥ 22.
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
        HOME: root,
        XDG_DATA_HOME: join(root, "data"),
        XDG_CONFIG_HOME: join(root, "config"),
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("@bridle/cli installed with npm from the packed tarballs", () => {
  it("installs without install scripts to skip and without a test runner", async () => {
    expect(npmWarnings, "npm warned about install scripts").not.toMatch(/install[- ]scripts?|allowScripts/i);
    expect(await exists(join(project.dir, "node_modules", "vitest")), "vitest was installed").toBe(false);
    expect(await exists(join(project.dir, "node_modules", "tree-sitter-bash")), "tree-sitter-bash").toBe(
      false,
    );
    const lock = JSON.parse(await readFile(join(project.dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path);
    expect(scripted, "packages with install scripts").toEqual([]);
  });

  it("bridle --help", async () => {
    const run = await bridle(["--help"], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('bridle run "<prompt>"');
  });

  it("bridle demo fixes the example repository with no API key", async () => {
    const run = await bridle(["demo"], { cwd: root });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/│ FAIL a small order pays shipping on top/);
    expect(run.stderr).toMatch(/│ all cart tests passed/);
  });

  it("bridle run reads a file through a loopback provider and answers", async () => {
    const workspace = await mkdtemp(join(root, "workspace-"));
    await writeFile(join(workspace, "notes.txt"), "the launch is on Tuesday\n");
    const server = await FakeProviderServer.start();
    try {
      server.enqueue(
        {
          kind: "stream",
          events: openaiResponsesFormat.events({
            toolCalls: [
              { id: "call_1", name: "read_file", arguments: JSON.stringify({ path: "notes.txt" }) },
            ],
          }),
        },
        { kind: "stream", events: openaiResponsesFormat.events({ text: "The launch is on Tuesday." }) },
      );
      const run = await bridle(
        [
          "run",
          "when is the launch?",
          "--model",
          "test-model",
          "--base-url",
          openaiResponsesFormat.baseUrl(server.url),
          "--cwd",
          workspace,
        ],
        { cwd: root, env: { OPENAI_API_KEY: "test-key" } },
      );
      expect(run.stderr).not.toMatch(/stopped:/);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("The launch is on Tuesday.");
      expect(JSON.stringify(server.requests[1]?.body)).toContain("the launch is on Tuesday");
    } finally {
      await server.close();
    }
  });

  it("bridle policy check judges with the shipped grammar and exits by the verdict", async () => {
    const allow = await bridle(["policy", "check", "git status"], { cwd: root });
    expect(allow.stdout).toMatch(/^allow: git status/);
    expect(allow.code).toBe(0);
    const deny = await bridle(["policy", "check", "ls && rm -rf /"], { cwd: root });
    expect(deny.stdout).toMatch(/^deny:/);
    expect(deny.code).toBe(2);
  });
});
