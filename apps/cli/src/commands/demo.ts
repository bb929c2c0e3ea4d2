import { access, cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliFlags } from "../args.js";
import { CliError } from "../cli-error.js";
import { loadSettings } from "../config.js";
import { runWithSettings } from "./run.js";

interface DemoScript {
  readonly prompt: string;
  readonly turns: readonly {
    readonly text?: string;
    readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[];
  }[];
}

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
 * `bridle demo`: the whole loop with no API key. The recorded model turns are served by a loopback server
 * speaking the OpenAI Responses wire format, so the real provider adapter, the real tools and a real
 * session store do the work on a temporary copy of an example repository.
 */
export async function demo(flags: CliFlags): Promise<number> {
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
        usage: { inputTokens: 1200 + index * 400, outputTokens: 60 },
        chunkSize: 6,
      }),
    });
  });
  process.env.OPENAI_API_KEY ??= "demo-key-not-used";
  const settings = await loadSettings({ ...flags, cwd: repo });
  process.stderr.write(
    `demo: example repository copied to ${repo}\ndemo: recorded model turns served on ${server.url}\n\n`,
  );
  try {
    return await runWithSettings(script.prompt, {
      ...settings,
      provider: "openai",
      model: "bridle-demo",
      baseUrl: openaiResponsesFormat.baseUrl(server.url),
      editFormat: "replace",
      storeDir: join(workDir, "store"),
      yes: true,
    });
  } finally {
    await server.close();
    if (!process.env.BRIDLE_DEMO_KEEP) await rm(workDir, { recursive: true, force: true });
  }
}
