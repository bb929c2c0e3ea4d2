import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ModelsDevCopy, modelInfoOf, modelTableFromModelsDev } from "../src/index.js";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "pin-models-dev.ts");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridle-models-dev-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), text);
}

describe("a model table from a pinned models.dev copy", () => {
  const copy: ModelsDevCopy = {
    source: "https://github.com/anomalyco/models.dev",
    commit: "0123456789abcdef0123456789abcdef01234567",
    date: "2026-07-01",
    provider: "example",
    models: {
      priced: {
        attachment: true,
        reasoning: true,
        tool_call: true,
        structured_output: true,
        cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
        limit: { context: 200_000, output: 64_000 },
        modalities: { input: ["text", "image"], output: ["text"] },
      },
      local: {
        attachment: false,
        reasoning: false,
        tool_call: true,
        limit: { context: 32_000, output: 4_096 },
        modalities: { input: ["text"], output: ["text"] },
      },
    },
  };

  it("dates every row with the copy's day and prices only what models.dev prices", () => {
    const table = modelTableFromModelsDev(copy);
    expect(table.priced).toEqual({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      capabilities: { images: true, reasoning: true, structuredOutput: true },
      checked: "2026-07-01",
    });
    expect(table.local?.price).toBeUndefined();
    expect(table.local?.capabilities).toEqual({ images: false, reasoning: false, structuredOutput: false });
    expect(modelInfoOf(table, "priced-2")).toBeUndefined();
  });
});

describe("pin-models-dev", () => {
  it("pins one provider's usable rows from a models.dev commit, merged over their base model", async () => {
    await write(
      "models/lab/big.toml",
      'name = "Big"\nattachment = true\nreasoning = true\ntool_call = true\nstructured_output = true\n' +
        "[limit]\ncontext = 400_000\ninput = 272_000\noutput = 128_000\n" +
        '[modalities]\ninput = ["text", "image"]\noutput = ["text"]\n',
    );
    await write(
      "providers/example/models/big.toml",
      'base_model = "lab/big"\nbase_model_omit = ["limit.input"]\n[cost]\ninput = 1.25\noutput = 10.00\ncache_read = 0.125\n',
    );
    await write(
      "providers/example/models/embed.toml",
      'name = "Embed"\nattachment = false\nreasoning = false\ntool_call = false\n' +
        "[cost]\ninput = 0.02\noutput = 0\n[limit]\ncontext = 8192\noutput = 1536\n" +
        '[modalities]\ninput = ["text"]\noutput = ["text"]\n',
    );
    await write("providers/other/models/x.toml", 'name = "X"\n');
    const env = { ...process.env, GIT_COMMITTER_DATE: "2026-07-01T12:00:00Z", TZ: "UTC" };
    const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8", env });
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "rows");
    const commit = git("rev-parse", "HEAD").trim();
    const out = join(dir, "pinned.json");

    execFileSync(process.execPath, [script, join(dir, ".git"), "HEAD", "example", out], {
      encoding: "utf8",
      env,
    });

    const pinned = JSON.parse(await readFile(out, "utf8")) as ModelsDevCopy;
    expect(pinned.commit).toBe(commit);
    expect(pinned.provider).toBe("example");
    expect(pinned.date).toBe("2026-07-01");
    expect(Object.keys(pinned.models)).toEqual(["big"]);
    expect(pinned.models.big).toEqual({
      attachment: true,
      reasoning: true,
      tool_call: true,
      structured_output: true,
      cost: { input: 1.25, output: 10, cache_read: 0.125 },
      limit: { context: 400_000, output: 128_000 },
      modalities: { input: ["text", "image"], output: ["text"] },
    });
  });
});
