import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type FakeTurn, openaiResponsesFormat } from "@bridle/testing";

export const CLI = fileURLToPath(new URL("../dist/main.js", import.meta.url));

/**
 * The flags the bin's shebang passes to node, read off the built bin so the tests start it as its users
 * do (see tsdown.config.ts and the README's note on memory).
 */
export const NODE_FLAGS: readonly string[] = (() => {
  let first = "";
  try {
    first = readFileSync(CLI, "utf8").split("\n", 1)[0] ?? "";
  } catch {
    // Not built: every test that runs the bin fails on its absence, which says more than a flag would.
  }
  return (/^#!.*\bnode\b(.*)$/.exec(first)?.[1] ?? "").split(/\s+/).filter((flag) => flag.startsWith("--"));
})();

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
