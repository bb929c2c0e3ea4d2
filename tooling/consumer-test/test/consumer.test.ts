import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  anthropicMessagesFormat,
  FakeProviderServer,
  type FakeWireFormat,
  openaiResponsesFormat,
} from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsumerProject, npmEnvironment } from "../src/consumer-project.js";
import { packPackages } from "../src/pack.js";
import { typecheckConsumer } from "../src/typecheck.js";
import { formatWeight, installWeight } from "../src/weight.js";
import { folderOf, readManifest, runtimeClosure } from "../src/workspace-packages.js";

const execute = promisify(execFile);
const consumerDir = fileURLToPath(new URL("../consumer/", import.meta.url));

const MINIMAL = ["@bridle/core", "@bridle/providers-openai", "@bridle/tools-fs", "@bridle/store-sqlite"];
const SWAPPED_IN = ["@bridle/providers-anthropic", "@bridle/store-jsonl"];
const CONTRIBUTED = "@bridle/tools-fetch";
const NOTE = "hello from outside the workspace";

interface AgentReport {
  provider: string;
  stopReason: string;
  error?: unknown;
  finalText: string;
  toolResult?: { isError: boolean; content: { type: string; text?: string }[] };
  storedMessages: string[];
  resolved: Record<string, string>;
}

let root: string;
let tarballs: Map<string, string>;
let project: ConsumerProject;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "bridle-consumer-"));
  const destination = join(root, "tarballs");
  await mkdir(destination);
  tarballs = await packPackages(await runtimeClosure([...MINIMAL, ...SWAPPED_IN, CONTRIBUTED]), destination);
  project = new ConsumerProject(join(root, "app"), tarballs);
}, 300_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe("packed tarballs", () => {
  it("hold every file their exports map names, a README and the LICENSE", async () => {
    for (const [name, tarball] of tarballs) {
      const { stdout } = await execute("tar", ["-tzf", tarball]);
      const files = new Set(stdout.split("\n").map((line) => line.replace(/^package\//, "")));
      const manifest = (await readManifest(name)) as { exports?: Record<string, Record<string, string>> };
      const targets = Object.values(manifest.exports ?? {}).flatMap((entry) => Object.values(entry));
      expect(targets.length, `${name} has an exports map`).toBeGreaterThan(0);
      for (const target of targets) {
        expect(files.has(target.replace(/^\.\//, "")), `${name}: ${target} (run pnpm build first)`).toBe(
          true,
        );
      }
      expect(files.has("README.md"), `${name}: README.md`).toBe(true);
      expect(files.has("LICENSE"), `${name}: LICENSE`).toBe(true);
    }
  });

  it("carry no workspace: ranges", async () => {
    for (const [name, tarball] of tarballs) {
      const { stdout } = await execute("tar", ["-xzOf", tarball, "package/package.json"]);
      expect(stdout, `${name} at ${folderOf(name)}`).not.toContain("workspace:");
    }
  });
});

describe("an npm project outside the workspace", () => {
  it("installs only core, providers-openai, tools-fs and store-sqlite, and runs an agent", async () => {
    await project.install(MINIMAL);
    const weight = await installWeight(project.dir);
    console.log(formatWeight("minimal install (core, providers-openai, tools-fs, store-sqlite)", weight));
    // A budget, not a measurement: generous headroom over today's ~36 MiB and 39 packages, so only a
    // heavy new dependency (a second SDK, a native toolchain) trips it.
    expect(weight.packages, "packages in the minimal install").toBeLessThan(80);
    expect(weight.bytes, "bytes in the minimal install").toBeLessThan(80 * 1024 * 1024);

    const sources = await project.resolvedBridlePackages();
    expect(Object.keys(sources).sort()).toEqual(
      ["@bridle/core", "@bridle/provider-kit", ...MINIMAL.slice(1)]
        .map((name) => `node_modules/${name}`)
        .sort(),
    );
    for (const [path, resolved] of Object.entries(sources)) {
      expect(resolved, `${path} must come from a tarball, not the registry`).toMatch(/^file:.*\.tgz$/);
    }

    const report = await runAgent(join(consumerDir, "agent.mjs"), openaiResponsesFormat, "OPENAI");
    expect(report.provider).toBe("openai");
    // The same script type-checks against the shipped declarations (the exports maps' `types`).
    expect(await typecheckConsumer(project.dir, "agent.mjs")).toBe("");
  });

  it("swaps in providers-anthropic and store-jsonl by changing imports only", async () => {
    await project.install([...MINIMAL, ...SWAPPED_IN]);
    console.log(
      formatWeight("with providers-anthropic and store-jsonl added", await installWeight(project.dir)),
    );
    const report = await runAgent(await swappedAgent(), anthropicMessagesFormat, "ANTHROPIC");
    expect(report.provider).toBe("anthropic");
    expect(await typecheckConsumer(project.dir, "agent.mjs")).toBe("");
  });
});

describe("a contributed tool package", () => {
  it("installs from its tarball beside the others and runs in the consumer's agent", async () => {
    await project.install([...MINIMAL, ...SWAPPED_IN, CONTRIBUTED]);
    const page = createServer((_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<h1>Release notes</h1><p>Bridle 0.1 is out.</p>"),
    );
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/notes`;
    const fake = await FakeProviderServer.start();
    try {
      fake.enqueue(
        {
          kind: "stream",
          events: openaiResponsesFormat.events({
            toolCalls: [{ id: "call_fetch_1", name: "fetch", arguments: JSON.stringify({ url }) }],
          }),
        },
        { kind: "stream", events: openaiResponsesFormat.events({ text: "Bridle 0.1 is out." }) },
      );
      const script = await project.addScript(join(consumerDir, "fetch-agent.mjs"), "fetch-agent.mjs");
      const { stdout } = await execute(process.execPath, [script, url], {
        cwd: project.dir,
        env: {
          ...npmEnvironment(),
          OPENAI_BASE_URL: openaiResponsesFormat.baseUrl(fake.url),
          OPENAI_API_KEY: "test-key",
        },
        timeout: 60_000,
      });
      const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as AgentReport;
      expect(report.stopReason).toBe("completed");
      expect(report.toolResult?.isError).toBe(false);
      expect(JSON.stringify(report.toolResult?.content)).toContain("# Release notes");
      expect(await typecheckConsumer(project.dir, "fetch-agent.mjs")).toBe("");
    } finally {
      await fake.close();
      page.closeAllConnections();
      await new Promise<void>((resolve) => page.close(() => resolve()));
    }
  });
});

/** The consumer's agent with its provider and store imports replaced: the only lines that change. */
async function swappedAgent(): Promise<string> {
  let source = await readFile(join(consumerDir, "agent.mjs"), "utf8");
  const swaps: [string, string][] = [
    [
      'import { createOpenAIResponsesModel as createModel } from "@bridle/providers-openai";',
      'import { createAnthropicModel as createModel } from "@bridle/providers-anthropic";',
    ],
    [
      'import { SqliteSessionStore as SessionStore } from "@bridle/store-sqlite";',
      'import { JsonlSessionStore as SessionStore } from "@bridle/store-jsonl";',
    ],
  ];
  for (const [from, to] of swaps) {
    expect(source.split(from).length, `agent.mjs holds exactly one "${from}"`).toBe(2);
    source = source.replace(from, to);
  }
  const path = join(root, "agent-swapped.mjs");
  await writeFile(path, source);
  return path;
}

/**
 * Runs a consumer script in its own Node process against a fake provider server: the model reads a file
 * with read_file, then answers. The fake runs here; the consumer only gets its URL.
 */
async function runAgent(source: string, format: FakeWireFormat, envPrefix: string): Promise<AgentReport> {
  const workspace = await mkdtemp(join(root, "workspace-"));
  const data = await mkdtemp(join(root, "data-"));
  await writeFile(join(workspace, "notes.txt"), `${NOTE}\n`);
  const fake = await FakeProviderServer.start();
  try {
    fake.enqueue(
      {
        kind: "stream",
        events: format.events({
          toolCalls: [
            { id: "call_read_1", name: "read_file", arguments: JSON.stringify({ path: "notes.txt" }) },
          ],
          usage: { inputTokens: 120, outputTokens: 12 },
        }),
      },
      {
        kind: "stream",
        events: format.events({
          text: `notes.txt says: ${NOTE}`,
          usage: { inputTokens: 160, outputTokens: 9 },
        }),
      },
    );
    const scriptPath = await project.addScript(source, "agent.mjs");
    const { stdout } = await execute(process.execPath, [scriptPath, workspace, data], {
      cwd: project.dir,
      env: {
        ...npmEnvironment(),
        [`${envPrefix}_BASE_URL`]: format.baseUrl(fake.url),
        [`${envPrefix}_API_KEY`]: "test-key",
        BRIDLE_MODEL: "fake-model",
      },
      timeout: 60_000,
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as AgentReport;

    expect(report.error).toBeUndefined();
    expect(report.stopReason).toBe("completed");
    expect(report.finalText).toBe(`notes.txt says: ${NOTE}`);
    expect(report.toolResult?.isError).toBe(false);
    expect(JSON.stringify(report.toolResult?.content)).toContain(NOTE);
    // The store persisted the run: the projection of what it holds is the whole conversation.
    expect(report.storedMessages).toEqual(["user", "assistant", "tool", "assistant"]);
    // Imports resolved inside the consumer project, not through the workspace.
    for (const resolved of Object.values(report.resolved)) {
      expect(fileURLToPath(resolved).startsWith(join(project.dir, "node_modules"))).toBe(true);
    }
    // The file's text reached the provider in the second request, in its own wire format.
    expect(fake.requests.map((request) => request.path)).toEqual([format.path, format.path]);
    expect(JSON.stringify(fake.requests[1]?.body)).toContain(NOTE);
    return report;
  } finally {
    await fake.close();
  }
}
