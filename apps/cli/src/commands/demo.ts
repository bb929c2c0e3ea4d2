import { access, cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModelInfo, RunEvent } from "@bridle/core";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings } from "../settings/config.js";
import { runWithSettings } from "./run.js";

interface DemoScript {
  readonly prompt: string;
  readonly turns: readonly {
    readonly text?: string;
    readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[];
  }[];
}

const DEMO_MODEL = "bridle-demo";

/**
 * The recorded script's row in the adapter's table, so no "unknown model" warning: it costs nothing (no
 * provider bills it, so every cost line reads $0.0000), takes no images and does not reason.
 */
const DEMO_MODEL_ROW: ModelInfo = {
  contextWindow: 128_000,
  maxOutputTokens: 16_384,
  price: { input: 0, output: 0 },
  capabilities: { images: false, reasoning: false, structuredOutput: false },
  checked: "2026-11-24",
};

/** Lines of a command's output the demo shows under its tool line. */
const OUTPUT_LINES = 12;

// The demo folder ships beside dist/ (the built bin) and src/ (tests run from source).
async function findDemoDir(): Promise<string> {
  for (const relative of ["../demo/", "../../demo/"]) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (
      await access(join(dir, "session.json")).then(
        () => true,
        () => false,
      )
    )
      return dir;
  }
  throw new CliError("the demo files are missing from this installation");
}

/**
 * `bridle demo`: the whole loop with no API key. The model's turns are a recorded script, served by a
 * loopback server speaking the OpenAI Responses wire format; the provider adapter, the tools, the edits,
 * the test run and the session store are real and work on a temporary copy of an example repository.
 */
export async function demo(flags: CliFlags): Promise<number> {
  const { keep, ...runFlags } = flags;
  const demoDir = await findDemoDir();
  const script = JSON.parse(await readFile(join(demoDir, "session.json"), "utf8")) as DemoScript;
  const { FakeProviderServer, openaiResponsesFormat } = await import("@bridle/testing");
  const workDir = await mkdtemp(join(tmpdir(), "bridle-demo-"));
  const repo = join(workDir, "repo");
  await cp(join(demoDir, "repo"), repo, { recursive: true });
  const server = await FakeProviderServer.start();
  script.turns.forEach((turn, index) => {
    const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({
      id: `call_demo_${index}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    }));
    server.enqueue({
      kind: "stream",
      events: openaiResponsesFormat.events({
        ...(turn.text ? { text: turn.text } : {}),
        toolCalls,
        // Illustrative figures (said so below): a recorded script has nobody counting tokens.
        usage: { inputTokens: 1200 + index * 400, outputTokens: 60 },
        chunkSize: 6,
      }),
    });
  });
  const settings = await loadSettings({ ...runFlags, cwd: repo });
  const say = (text: string) => process.stderr.write(`${text}\n`);
  say(
    [
      "bridle demo: the model's turns are a recorded script (no API key, no model). Everything else is real:",
      "the OpenAI adapter reads them from a loopback server, the tools read and edit real files, the test",
      "command really runs, and the session is really stored. Token counts shown are illustrative; the cost is",
      "$0: no provider bills a recorded script.",
      "",
      `repository: ${repo} (a copy of the demo's cart module)`,
      `prompt:     ${script.prompt}`,
      "",
    ].join("\n"),
  );
  let outcome: Awaited<ReturnType<typeof runWithSettings>> | undefined;
  try {
    outcome = await runWithSettings(
      script.prompt,
      {
        ...settings,
        provider: "openai",
        model: DEMO_MODEL,
        models: { [DEMO_MODEL]: DEMO_MODEL_ROW },
        baseUrl: openaiResponsesFormat.baseUrl(server.url),
        // The recorded script calls the generic tools: read_file, edit_file, bash.
        profile: "generic",
        editFormat: "replace",
        // --keep records into the usual store, so `bridle sessions show` finds the session afterwards.
        storeDir: keep ? settings.storeDir : join(workDir, "store"),
        yes: true,
      },
      settings.json ? {} : { observe: (event) => showCommandOutput(event, say) },
    );
  } finally {
    await server.close();
    if (!keep) await rm(workDir, { recursive: true, force: true });
  }
  if (!settings.json) {
    say("");
    const bridle = commandName();
    if (keep) {
      say(`kept: the repository at ${repo}`);
      say(`      the session: ${bridle} sessions show ${outcome.sessionId}`);
    } else {
      say(`The repository and session were temporary and are gone; ${bridle} demo --keep leaves them.`);
    }
    say("Now on your own repository: set OPENAI_API_KEY or ANTHROPIC_API_KEY, then run");
    say(`  ${bridle} run "<what you want done>" --cwd /path/to/your/repo`);
  }
  return outcome.exitCode;
}

/**
 * The command the person typed to reach this one, for the lines that tell them what to type next:
 * `./dev bridle` sets `BRIDLE_INVOKED_AS` (nothing named `bridle` need be on PATH then); otherwise `bridle`.
 * Only a short, printable value is used.
 */
function commandName(): string {
  const named = process.env.BRIDLE_INVOKED_AS ?? "";
  return named.length > 0 && named.length <= 200 && /^[\x20-\x7e]+$/.test(named) ? named : "bridle";
}

/** Under a shell or check call's tool line: what the command printed (a failing test's assertions included). */
function showCommandOutput(event: RunEvent, say: (text: string) => void): void {
  if (event.type !== "tool_call_completed") return;
  const tool = event.result.toolName;
  if (tool !== "bash" && tool !== "run_check") return;
  const text = event.result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  const lines = (tool === "bash" ? shellOutput(text) : checkOutput(text)).trimEnd().split("\n");
  const shown = lines.length > OUTPUT_LINES ? [...lines.slice(0, OUTPUT_LINES), "…"] : lines;
  for (const line of shown) say(`    │ ${line}`);
}

/** run_check's result is its status line (already on the tool line), then what the command printed. */
function checkOutput(text: string): string {
  return text.split("\n").slice(1).join("\n");
}

function shellOutput(text: string): string {
  try {
    const result = JSON.parse(text) as { stdout?: unknown; stderr?: unknown };
    return `${typeof result.stdout === "string" ? result.stdout : ""}${typeof result.stderr === "string" ? result.stderr : ""}`;
  } catch {
    // Not the bash tool's JSON (a Denied or InvalidInput result): shown as it is.
    return text;
  }
}
