// One recipe, every front door: for the same settings and workspace, `bridle run`, a durable run, a worker,
// `bridle tools list --json` and an apps/eval run build the same agent, so the model is sent the same
// system prompt and the same tools, byte for byte. Each door is driven as its users drive it (the built
// bins, a loopback fake OpenAI server, a throwaway Postgres for the durable run).
import { spawn } from "node:child_process";
import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeOpenAI, runCli } from "./cli-harness.js";
import { startCli } from "./durable-process.js";
import { usePostgres } from "./postgres.js";

const postgres = usePostgres();

// A bundled eval task: its repository is the workspace every door works in.
const TASK = fileURLToPath(new URL("../../eval/tasks/bugfix/sum-empty-list", import.meta.url));
const EVAL_BIN = fileURLToPath(new URL("../../eval/dist/main.js", import.meta.url));

interface FirstRequest {
  readonly instructions: unknown;
  readonly tools: unknown;
}

/** What of a request the agent decides: the system prompt and the tools (names, descriptions, schemas). */
function agentPart(body: unknown): string {
  const { instructions, tools } = body as FirstRequest;
  return JSON.stringify({ instructions, tools });
}

function run(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const result = await new Promise<number | null>((resolve, reject) => {
    const child = spawn("git", ["-c", "core.hooksPath=/dev/null", ...args], {
      cwd,
      stdio: "ignore",
      env: {
        PATH: process.env.PATH,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.invalid",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.invalid",
      },
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
  expect(result).toBe(0);
}

describe("every front door builds the same agent", () => {
  let dir: string;
  let repo: string;
  let cleanup: () => Promise<void>;
  let server: FakeProviderServer;
  const env = () => ({
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
    BRIDLE_DATABASE_URL: postgres.url,
  });
  // The settings an eval task fixes (generic profile, its edit format), given to the CLI as flags.
  const flags = () => [
    "--provider",
    "openai",
    "--base-url",
    openaiResponsesFormat.baseUrl(server.url),
    "--model",
    "test-model",
    "--sandbox",
    "off",
    "--profile",
    "generic",
    "--edit-format",
    "replace",
  ];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-cli-front-doors-"));
    repo = join(dir, "repo");
    await mkdir(repo);
    await cp(join(TASK, "repo"), repo, { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    await git(repo, "add", "-A");
    await git(repo, "commit", "-q", "--no-gpg-sign", "-m", "fixture");
    server = await fakeOpenAI([]);
  });
  afterAll(async () => {
    await server.close();
    await cleanup();
  });

  it("sends the same system prompt and tools from bridle run, --durable, a worker, tools list and an eval run", async () => {
    const answer = () =>
      server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "Done." }) });
    const firstRequestOf = async (start: () => Promise<{ code: number | null; stderr: string }>) => {
      const before = server.requests.length;
      answer();
      const result = await start();
      expect(result.stderr).not.toMatch(/unexpected error/);
      const request = server.requests[before];
      expect(request, result.stderr).toBeDefined();
      return agentPart(request?.body);
    };

    const direct = await firstRequestOf(() =>
      runCli(["run", "fix it", ...flags()], { cwd: repo, env: env() }),
    );
    const parsed = JSON.parse(direct) as { instructions: string; tools: { name: string }[] };
    expect(parsed.instructions).toContain("coding agent");
    expect(parsed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["bash", "run_check"]));

    const evalOut = join(dir, "eval-out");
    const viaEval = await firstRequestOf(() =>
      run(
        [
          EVAL_BIN,
          "run",
          TASK,
          "--provider",
          "openai",
          "--base-url",
          openaiResponsesFormat.baseUrl(server.url),
          "--model",
          "test-model",
          "--sandbox",
          "off",
          "--out",
          join(evalOut, "results.jsonl"),
          "--no-report",
        ],
        dir,
        env(),
      ),
    );
    expect(viaEval).toBe(direct);

    // What `tools list --json` prints is what the request carried, tool for tool.
    const listed = await runCli(["tools", "list", "--json", ...flags()], { cwd: repo, env: env() });
    expect(listed.code, listed.stderr).toBe(0);
    const schemas = (
      JSON.parse(listed.stdout) as { name: string; description: string; deferred?: true }[]
    ).filter((schema) => !schema.deferred);
    const sent = parsed.tools as unknown as { name: string; description: string; parameters: unknown }[];
    expect(schemas.map((s) => s.name)).toEqual(sent.map((tool) => tool.name));
    expect(schemas.map((s) => s.description)).toEqual(sent.map((tool) => tool.description));

    if (postgres.skip) {
      console.warn(`front doors: the durable run was skipped: ${postgres.skip}`);
      return;
    }
    const durable = await firstRequestOf(() =>
      runCli(["run", "fix it", "--durable", "--yes", ...flags()], { cwd: repo, env: env() }),
    );
    expect(durable).toBe(direct);

    // Queued, and run by a worker process from the run's recorded options.
    const viaWorker = await firstRequestOf(async () => {
      const queued = await runCli(["run", "fix it", "--enqueue", "--yes", ...flags()], {
        cwd: repo,
        env: env(),
      });
      expect(queued.code, queued.stderr).toBe(0);
      const worker = startCli(["worker", "--concurrency", "1", ...flags().slice(0, 4)], env(), dir);
      try {
        await worker.waitFor(/pulling runs/);
        const waited = await runCli(["runs", "wait", queued.stdout.trim()], { cwd: repo, env: env() });
        return { code: waited.code, stderr: waited.stderr + worker.output.stderr };
      } finally {
        worker.child.kill("SIGTERM");
        await worker.exited;
      }
    });
    expect(viaWorker).toBe(direct);
  });
});
