import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { type AnyTool, parseToolArguments, type ToolCallEnv, type ToolOutput, Workspace } from "@bridle/core";

export const TOY_SERVER = fileURLToPath(new URL("./fixtures/toy-server.mjs", import.meta.url));
const modules = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/", import.meta.url));
export const EVERYTHING_SERVER = `${modules}server-everything/dist/index.js`;
export const FILESYSTEM_SERVER = `${modules}server-filesystem/dist/index.js`;
export const MEMORY_SERVER = `${modules}server-memory/dist/index.js`;

/** Toy servers under these names; `tag` is on their command lines, so a test finds its own processes. */
export function toyConfig(tag: string, ...names: string[]) {
  return {
    mcpServers: Object.fromEntries(
      names.map((name) => [name, { command: process.execPath, args: [TOY_SERVER, `--tag=${tag}`] }]),
    ),
  };
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (data: unknown) => void;
}

/** Validates like the harness does, then runs the tool; a thrown ToolFailure is left to the caller. */
export async function callTool(
  tool: AnyTool,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<ToolOutput> {
  const parsed = parseToolArguments(tool.inputSchema, JSON.stringify(args));
  if (!parsed.ok) throw new Error(`invalid arguments: ${parsed.problems.join("; ")}`);
  const ctx: ToolCallEnv = {
    signal: options.signal ?? new AbortController().signal,
    workspace: new Workspace(process.cwd()),
    runId: "run-test",
    toolCallId: "call-test",
    progress: (data) => options.onProgress?.(data),
  };
  return tool.execute(parsed.value, ctx);
}

export function byName(tools: readonly AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

export function textOf(output: ToolOutput): string {
  if (typeof output.content === "string") return output.content;
  return output.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}

/** Whether a pid is a running (not zombie) process, read from /proc. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Processes whose command line mentions `needle`, from /proc. */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSafe("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(needle) && running(Number(entry))) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

// Returns as soon as `check` holds; the limit only says when to give up on a hung wait, so it is
// generous: a loaded machine may take many seconds to reap a process.
export async function waitFor(check: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface HttpServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** server-everything in one of its HTTP modes on a loopback port; resolves once it listens. */
export async function startEverythingHttp(
  mode: "streamableHttp" | "sse",
  port?: number,
): Promise<HttpServer> {
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    env: { ...process.env, PORT: String(chosen) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start: ${log}`)),
      15_000,
    );
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (/listening on port|running on port/i.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything ${mode} exited with ${code}: ${log}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url: `http://127.0.0.1:${chosen}${mode === "sse" ? "/sse" : "/mcp"}`,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
