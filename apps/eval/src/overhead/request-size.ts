// What Bridle's first request is made of, per profile: the bytes of each tool's description and schema,
// the system prompt and the prompt, as the loopback server received them. The budget is 6 KB per profile.

import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentSpec } from "./agents.js";
import { LoopbackModel } from "./loopback.js";

export const PROFILES = ["generic", "openai", "anthropic"] as const;

/** Issue 38's budget for the default first request of every profile, in bytes (pi sends 5,631). */
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

/** Spawns Bridle with `--profile <profile>` against a loopback model that answers its first request. */
export async function firstRequestSize(agent: AgentSpec, profile: string): Promise<RequestSize> {
  const root = await mkdtemp(join(tmpdir(), "bridle-request-size-"));
  const model = await LoopbackModel.start({ toolTurns: 0 });
  try {
    const workspace = join(root, "work");
    await mkdir(workspace, { recursive: true });
    await mkdir(join(root, "home"), { recursive: true });
    const launch = agent.launch({
      baseUrl: model.baseUrl,
      workspace,
      home: join(root, "home"),
      prompt: "Say done.",
      bridleArgs: ["--profile", profile],
    });
    const child = spawn(process.execPath, launch.args, {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...launch.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const body = model.firstRequest as { tools?: unknown[]; messages?: { role?: string }[] } | undefined;
    const problems = body ? [] : [`no request arrived; exit ${exit}; ${stderr.trim().slice(-400)}`];
    const system = body?.messages?.find((message) => message.role === "system");
    return {
      profile,
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
    await rm(root, { recursive: true, force: true });
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

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
