// What Bridle's first request is made of, per profile: the bytes of each tool's description and schema,
// the system prompt and the prompt, as the loopback server received them. The budget is 6 KB per profile.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentSpec } from "./agents.js";
import { LoopbackModel } from "./loopback.js";

export const PROFILES = ["generic", "openai", "anthropic"] as const;

/**
 * Issue 38's budget for the default first request of every profile, in bytes (pi sends 5,631): for
 * `bridle run` and for the interactive session, which offers the plan tool as well.
 */
export const FIRST_REQUEST_BUDGET = 6_144;

/** One first request, taken apart. Sizes are bytes of the JSON as sent. */
export interface RequestSize {
  readonly profile: string;
  readonly totalBytes: number;
  readonly systemBytes: number;
  /** Each tool's definition (name, description, parameters), in the order offered. */
  readonly tools: readonly { readonly name: string; readonly bytes: number }[];
  readonly problems: readonly string[];
}

/**
 * util-linux's `script`: it gives the interactive session the terminal it needs (a pseudo-terminal), with
 * the session's keys written to its stdin.
 */
export const SCRIPT = "/usr/bin/script";

export interface RequestSizeOptions {
  /**
   * The interactive session (`bridle` at a terminal, which can switch to plan mode and so offers the plan
   * tool) instead of `bridle run`: started under `script`, the prompt typed once the input line shows.
   */
  readonly interactive?: boolean;
}

/** Spawns Bridle with `--profile <profile>` against a loopback model that answers its first request. */
export async function firstRequestSize(
  agent: AgentSpec,
  profile: string,
  options: RequestSizeOptions = {},
): Promise<RequestSize> {
  const root = await mkdtemp(join(tmpdir(), "bridle-request-size-"));
  const model = await LoopbackModel.start({ toolTurns: 0 });
  try {
    const workspace = join(root, "work");
    await mkdir(workspace, { recursive: true });
    await mkdir(join(root, "home"), { recursive: true });
    const prompt = "Say done.";
    const launch = agent.launch({
      baseUrl: model.baseUrl,
      workspace,
      home: join(root, "home"),
      prompt,
      bridleArgs: ["--profile", profile],
      ...(options.interactive ? { interactive: true } : {}),
    });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...launch.env };
    const { child, output } = options.interactive
      ? atTerminal([process.execPath, ...launch.args], env, workspace, prompt, model)
      : oneShot(launch.args, env, workspace);
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const stderr = output();
    const body = model.firstRequest as { tools?: unknown[]; messages?: { role?: string }[] } | undefined;
    const problems = body ? [] : [`no request arrived; exit ${exit}; ${stderr.trim().slice(-400)}`];
    const system = body?.messages?.find((message) => message.role === "system");
    return {
      profile: options.interactive ? `${profile}, interactive` : profile,
      totalBytes: model.timings[0]?.requestBytes ?? 0,
      systemBytes: system ? bytes(system) : 0,
      tools: (body?.tools ?? []).map((tool) => ({
        name: String((tool as { function?: { name?: unknown } }).function?.name ?? "?"),
        bytes: bytes(tool),
      })),
      problems,
    };
  } finally {
    await model.close();
    // The interactive session runs under `script`, which may end before the agent under it has written
    // its last file (the compile cache): removing the folder then meets it still filling.
    await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function oneShot(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < 2000) stderr += chunk;
  });
  return { child, output: () => stderr };
}

// The input line ends with the mode's name and "› " (after the terminal's control sequences).
const INPUT_LINE = /› $/;
const CONTROL = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;?]*[A-Za-z]`, "g");

/**
 * The interactive session in a pseudo-terminal: the prompt is typed once the input line shows, and the
 * session is ended once its first request has arrived (or it ended on its own).
 */
function atTerminal(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  prompt: string,
  model: LoopbackModel,
): { child: ChildProcess; output: () => string } {
  const quoted = argv.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  const child = spawn(SCRIPT, ["-qefc", quoted, "/dev/null"], {
    cwd,
    env: { ...env, TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  let typed = false;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    screen = (screen + chunk).slice(-4000);
    if (!typed && INPUT_LINE.test(screen.replace(CONTROL, ""))) {
      typed = true;
      child.stdin?.write(`${prompt}\r`);
    }
  });
  const watch = setInterval(() => {
    if (model.timings.length > 0) child.kill("SIGTERM");
  }, 50);
  const timeout = setTimeout(() => child.kill("SIGKILL"), 120_000);
  child.on("close", () => {
    clearInterval(watch);
    clearTimeout(timeout);
  });
  return { child, output: () => screen.replace(CONTROL, "") };
}

/** One column per profile, one row per tool (largest first), then the system prompt and the total. */
export function formatRequestSizes(sizes: readonly RequestSize[]): string {
  const names = [...new Set(sizes.flatMap((size) => size.tools.map((tool) => tool.name)))];
  const largest = (name: string) =>
    Math.max(...sizes.map((size) => size.tools.find((tool) => tool.name === name)?.bytes ?? 0));
  names.sort((a, b) => largest(b) - largest(a));
  const lines = [
    `| tool | ${sizes.map((size) => size.profile).join(" | ")} |`,
    `|---|${sizes.map(() => "---:").join("|")}|`,
  ];
  for (const name of names) {
    const cells = sizes.map((size) => size.tools.find((tool) => tool.name === name)?.bytes ?? "");
    lines.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  lines.push(`| (system prompt) | ${sizes.map((size) => size.systemBytes).join(" | ")} |`);
  lines.push(`| **first request** | ${sizes.map((size) => `**${size.totalBytes}**`).join(" | ")} |`);
  return lines.join("\n");
}
