import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The built command, as a user runs it (`pnpm build` first; `./dev test` and CI build before testing). */
export const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

export interface BinRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runBin(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<BinRun> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`pnpm --filter @bridle/eval build\` first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--liftoff-only", BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
