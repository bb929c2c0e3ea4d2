// A worker outlives its database: Postgres restarts under a worker whose run waits for a person, the
// worker waits it out, and once approved the run finishes there. A Postgres of this file's own, since it is restarted.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { startLocalPostgres } from "@bridle/tooling/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";
import { startCli } from "./durable-process.js";

describe("a worker and a Postgres restart", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let database: { url: string; stop(): void } | undefined;
  let skip = "";
  let server: FakeProviderServer | undefined;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-cli-restart-"));
    // BRIDLE_DATABASE_URL's server is not this test's to restart: it needs one of its own.
    const started = await startLocalPostgres();
    if ("skip" in started) skip = started.skip;
    else database = started;
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    database?.stop();
    await cleanup();
  });

  /** Restarts the server (immediate shutdown: every connection drops, as when Postgres crashes). */
  function restartPostgres(url: string): void {
    // The server process listening on the URL's port names its data folder (-D) and its binaries.
    const port = new URL(url).port;
    const server = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map((pid) => {
        try {
          return { pid, argv: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0") };
        } catch {
          return { pid, argv: [] };
        }
      })
      .find(({ argv }) => argv.includes("-D") && argv.some((arg, i) => arg === "-p" && argv[i + 1] === port));
    if (!server) throw new Error(`no Postgres server process on port ${port}`);
    const data = server.argv[server.argv.indexOf("-D") + 1] as string;
    const pgCtl = join(dirname(readlinkSync(`/proc/${server.pid}/exe`)), "pg_ctl");
    // Its log goes to a file beside the data folder: a server writing to our pipe would hold it open.
    const args = [
      "restart",
      "-D",
      data,
      "-l",
      join(dirname(data), "server.log"),
      "-m",
      "immediate",
      "-w",
      "-t",
      "60",
    ];
    const root = process.getuid?.() === 0;
    execFileSync(root ? "runuser" : pgCtl, root ? ["-u", "postgres", "--", pgCtl, ...args] : args, {
      stdio: "ignore",
    });
  }

  it("the worker waits Postgres out, and finishes its run once it is approved", async (context) => {
    if (skip || !database) return context.skip(skip);
    const url = database.url;
    const repo = join(dir, "repo");
    await mkdir(repo, { recursive: true });
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "echo restarted > note.txt" })] },
      { text: "Wrote the note." },
    ]);
    const env = {
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
      OPENAI_API_KEY: "test-key",
      BRIDLE_DATABASE_URL: url,
    };
    const endpoint = ["--provider", "openai", "--base-url", openaiResponsesFormat.baseUrl(server.url)];
    const queued = await runCli(
      ["run", "write a note", "--enqueue", ...endpoint, "--model", "m", "--cwd", repo, "--sandbox", "off"],
      { cwd: repo, env },
    );
    expect(queued.code, queued.stderr).toBe(0);
    const runId = queued.stdout.trim();
    const worker = startCli(["worker", "--concurrency", "1", ...endpoint], env, dir);
    try {
      await worker.waitFor(new RegExp(`run ${runId} waits for a person`));
      restartPostgres(url);
      // The process executing runs lost the database and ended; the worker started another, which pulls
      // runs again (the waiting run is parked in the database, held by no process).
      await worker.waitFor(/lost the database\); starting another/);
      await worker.waitFor(/pulling runs, 1 at a time[\s\S]*pulling runs, 1 at a time/);
      const shown = await runCli(["runs", "show", runId], { cwd: repo, env });
      expect(shown.stdout).toContain("waits on c1");
      // Approved: the new worker process continues the run from its wait and finishes it.
      const approved = await runCli(["runs", "approve", runId, "c1"], { cwd: repo, env });
      expect(approved.code, approved.stderr).toBe(0);
      const waited = await runCli(["runs", "wait", runId], { cwd: repo, env });
      expect(waited.code, waited.stderr + worker.output.stderr).toBe(0);
      expect(waited.stdout).toContain("Wrote the note.");
      // Still the same worker: it never exited.
      expect(worker.child.exitCode).toBeNull();
      expect(worker.output.stderr).not.toContain("already executing a query");
    } finally {
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
    }
  }, 180_000);
});
