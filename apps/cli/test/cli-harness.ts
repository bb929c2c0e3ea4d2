import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type FakeTurn, openaiResponsesFormat } from "@bridle/testing";

export const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/**
 * The flags the bin's shebang passes to node. Optimize for size: V8 collects garbage sooner; a 500-turn
 * session peaks at ~105 MB instead of ~190 MB for ~5% more wall time. (The command policy judges in a
 * process of its own with the flag its bash grammar needs: see @bridle/tools-shell's README.)
 */
export const NODE_FLAGS = ["--optimize-for-size"];

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built bridle CLI as a user would, with no terminal on stdin. */
export function runCli(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
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

/** A fake OpenAI Responses server queued with these turns. */
export async function fakeOpenAI(turns: readonly FakeTurn[]): Promise<FakeProviderServer> {
  const server = await FakeProviderServer.start();
  queueTurns(server, turns);
  return server;
}

/** More turns for a fake OpenAI Responses server, answered in order. */
export function queueTurns(server: FakeProviderServer, turns: readonly FakeTurn[]): void {
  for (const turn of turns) server.enqueue({ kind: "stream", events: openaiResponsesFormat.events(turn) });
}

export function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, name, arguments: JSON.stringify(args) };
}

/** The text of every function_call_output the server was sent in its last request. */
export function toolOutputsSent(server: FakeProviderServer): string[] {
  const last = server.requests.at(-1)?.body as { input?: { type?: string; output?: unknown }[] } | undefined;
  return (last?.input ?? [])
    .filter((item) => item.type === "function_call_output")
    .map((item) => (typeof item.output === "string" ? item.output : JSON.stringify(item.output)));
}

/** The user-role text items of one recorded Responses request, in order. */
export function userTexts(body: unknown): string[] {
  const input = (body as { input?: { role?: string; content?: unknown }[] }).input ?? [];
  return input.flatMap((item) => {
    if (item.role !== "user") return [];
    if (typeof item.content === "string") return [item.content];
    return (item.content as { text?: string }[]).map((part) => part.text ?? "");
  });
}
