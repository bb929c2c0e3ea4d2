// Real processes for the race and concurrency tests, shared with @bridle/tools-edit-hashline's tests
// (which reach this file by its path: test code, not part of either package's API).
import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolFailure } from "@bridle/core";
import { afterEach, expect } from "vitest";

const SWAPPER = fileURLToPath(new URL("./fixtures/link-swapper.mjs", import.meta.url));
const LOADER = fileURLToPath(new URL("./fixtures/ts-loader.mjs", import.meta.url));

/** Start the swapper process; `stop` ends it and resolves to how many swaps it made. */
export async function startSwapper(ws: string, outside: string) {
  const child = spawn(process.execPath, [SWAPPER, ws, outside], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  let out = "";
  child.stdout.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready\n")) resolve();
    });
  });
  return {
    async stop(): Promise<{ fileSwaps: number; dirSwaps: number }> {
      // A swapper that died early (it crashed) made the race a sham: that fails the test.
      expect(child.exitCode).toBeNull();
      const closed = new Promise((resolve) => child.once("close", resolve));
      child.kill("SIGTERM");
      await closed;
      return JSON.parse(out.slice(out.indexOf("ready\n") + 6).trim());
    },
  };
}

/** Every name, byte and modification time under the outside folder. */
export async function outsideState(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true });
  const state: string[] = [];
  for (const name of entries.sort()) {
    const path = join(dir, name);
    const info = await stat(path, { bigint: true });
    state.push(
      `${name} ${info.mtimeNs} ${info.isFile() ? (await readFile(path)).toString("base64") : "dir"}`,
    );
  }
  return state.join("\n");
}

/** Calls made, calls refused (by kind) and anything thrown that is not a ToolFailure. */
export class Tally {
  readonly ok = new Map<string, number>();
  readonly refused = new Map<string, number>();
  readonly crashes: string[] = [];
  async attempt(label: string, call: () => Promise<void>): Promise<void> {
    try {
      await call();
      this.ok.set(label, (this.ok.get(label) ?? 0) + 1);
    } catch (error) {
      if (error instanceof ToolFailure) {
        const key = `${label}: ${error.kind}`;
        this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
      } else this.crashes.push(`${label}: ${String(error)}`);
    }
  }
}

export interface WorkerReport {
  readonly id: string;
  readonly applied: number[];
  readonly conflicts: Record<string, number>;
  readonly failures: string[];
}

/**
 * Start a TypeScript worker (run from source through the loader) that prints "ready", waits for a line on
 * stdin, then prints its JSON report. Resolves once it has loaded, with `go` and a promise of the report.
 */
export async function startWorker<R>(script: string, args: readonly string[]) {
  const child = spawn(
    process.execPath,
    ["--experimental-transform-types", "--no-warnings", "--import", LOADER, script, ...args],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  const report = new Promise<R>((resolve, reject) => {
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`worker ${script} exited ${code}: ${err}`));
      else resolve(JSON.parse(out.slice(out.indexOf("ready\n") + 6)) as R);
    });
  });
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (out.includes("ready\n")) {
        clearInterval(poll);
        resolve();
      }
    }, 10);
    report.catch((error: unknown) => {
      clearInterval(poll);
      reject(error);
    });
  });
  return { go: () => child.stdin.end("go\n"), report };
}

/**
 * Check the end state of a concurrent edit test: each worker's line `<id>-<n>` must read `done` exactly
 * once when the worker was told its edit was applied, and `todo` exactly once when it was told Conflict
 * every time; any other answer, or a line gone or doubled, fails.
 */
export function expectNoneLost(
  reports: readonly WorkerReport[],
  final: readonly string[],
  edits: number,
): void {
  expect(reports.flatMap((r) => r.failures)).toEqual([]);
  for (const report of reports) {
    for (let n = 0; n < edits; n++) {
      const done = final.filter((line) => line === `${report.id}-${n}: done`).length;
      const todo = final.filter((line) => line === `${report.id}-${n}: todo`).length;
      if (report.applied.includes(n)) expect({ n, done, todo }).toEqual({ n, done: 1, todo: 0 });
      else {
        expect(report.conflicts[n]).toBeGreaterThan(0);
        expect({ n, done, todo }).toEqual({ n, done: 0, todo: 1 });
      }
    }
  }
  // The processes really overlapped: some edits met a file another process had just changed.
  expect(reports.reduce((sum, r) => sum + Object.keys(r.conflicts).length, 0)).toBeGreaterThan(0);
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});
