// A long-running bridle process for the durable tests (a worker, a durable run).
import { type ChildProcess, spawn } from "node:child_process";
import { CLI, NODE_FLAGS } from "./cli-harness.js";

/** A long-running bridle process (a worker, a durable run), with its stderr collected as it comes. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child: ChildProcess = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    for (let i = 0; i < 1200; i++) {
      const match = pattern.exec(output.stderr);
      if (match) return match;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no ${pattern} on stderr within 60 s: ${output.stderr}`);
  };
  return { child, output, exited, waitFor };
}
