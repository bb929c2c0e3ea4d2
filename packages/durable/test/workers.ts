// Worker processes for the tests: the fixture bundled once per test file (workspace packages from source,
// DBOS loaded from node_modules), started and killed like a user's `bridle worker`.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { childBundleOptions, tempWorkspace } from "@bridle/testing";
import { build } from "esbuild";
import { afterAll, beforeAll } from "vitest";
import { ScriptedProvider } from "./fixtures/scripted-provider.js";

const packageDir = join(import.meta.dirname, "..");

/** Bundles test/fixtures/<name>.ts; the file sits under node_modules so DBOS resolves from it. */
export async function bundleFixture(
  name: "worker" | "client" = "worker",
): Promise<{ file: string; remove: () => void }> {
  const dir = join(packageDir, "node_modules", ".bridle-test");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${randomBytes(4).toString("hex")}.mjs`);
  await build({
    ...childBundleOptions(join(import.meta.dirname, "fixtures", `${name}.ts`), file),
    external: ["@dbos-inc/dbos-sdk"],
    // node-postgres and the OpenAI SDK are CommonJS-flavoured: an ESM bundle needs a require of its own.
    banner: {
      js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
    },
  });
  return { file, remove: () => rmSync(file, { force: true }) };
}

export interface WorkerArgs {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly providerUrl: string;
  readonly logFile: string;
  readonly concurrency: number;
  /** Extra environment (BRIDLE_TEST_START_AT: the moment to start at, see fixtures/start-at.ts). */
  readonly env?: Readonly<Record<string, string>>;
}

export class WorkerProcess {
  readonly child: ChildProcess;
  readonly executorId: string;
  readonly exited: Promise<number | null>;
  stderr = "";

  private constructor(child: ChildProcess, executorId: string, exited: Promise<number | null>) {
    this.child = child;
    this.executorId = executorId;
    this.exited = exited;
  }

  static async start(bundle: string, args: WorkerArgs): Promise<WorkerProcess> {
    const child = spawn(
      process.execPath,
      [bundle, args.databaseUrl, args.schema, args.providerUrl, args.logFile, String(args.concurrency)],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...args.env } },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const executorId = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const ready = /ready (\S+)\n/.exec(out);
        if (ready?.[1]) resolve(ready[1]);
      });
      void exited.then((code) =>
        reject(new Error(`worker exited (${code}) before it was ready: ${stderr.slice(-2000)}`)),
      );
    });
    const worker = new WorkerProcess(child, executorId, exited);
    child.stderr?.on("data", (chunk: Buffer) => {
      worker.stderr += chunk.toString();
    });
    worker.stderr = stderr;
    return worker;
  }

  /** SIGKILL: the process dies mid-whatever, as on a crash or an OOM kill. */
  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.exited;
  }

  /** SIGTERM: the worker closes its engine and exits. */
  async stop(): Promise<number | null> {
    this.child.kill("SIGTERM");
    return this.exited;
  }
}

export interface WorkerFixture {
  /** A temp folder of the test file's own (effect logs go there). */
  readonly dir: string;
  /** The bundled worker program. */
  readonly bundle: string;
  readonly provider: ScriptedProvider;
}

/** What every worker-process test file sets up once and removes after: read its fields inside tests. */
export function workerFixture(prefix: string, options: { readonly latencyMs?: number } = {}): WorkerFixture {
  let state:
    | {
        dir: string;
        cleanup: () => Promise<void>;
        bundle: { file: string; remove: () => void };
        provider: ScriptedProvider;
      }
    | undefined;
  beforeAll(async () => {
    const { dir, cleanup } = await tempWorkspace(prefix);
    state = { dir, cleanup, bundle: await bundleFixture(), provider: await ScriptedProvider.start(options) };
  });
  afterAll(async () => {
    await state?.provider.close();
    state?.bundle.remove();
    await state?.cleanup();
  });
  const ready = () => {
    if (!state) throw new Error("workerFixture is read before its beforeAll ran");
    return state;
  };
  return {
    get dir() {
      return ready().dir;
    },
    get bundle() {
      return ready().bundle.file;
    },
    get provider() {
      return ready().provider;
    },
  };
}
