import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, test } from "vitest";
import { loadSettings } from "../src/settings/config.js";
import type { TrustIo } from "../src/trust/trust.js";

// What workspace trust adds to the start: loading settings with no workspace config, with an untrusted one
// (its sensitive keys dropped), and with a remembered one whose fingerprint covers a skills folder (the
// public agent-skills fixture, 52 entries, ~0.5 MB, hashed on every start). Compare the rows' ratios.
const skillsFixture = fileURLToPath(new URL("../../../../shared/fixtures/agent-skills/", import.meta.url));
let dir: string;
const quiet: TrustIo = { warn: () => {} };
const env = () => ({ XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data") });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bridle-trust-bench-"));
  await mkdir(join(dir, "plain"));
  await mkdir(join(dir, "untrusted"));
  await writeFile(
    join(dir, "untrusted", "bridle.config.json"),
    '{"model": "m", "yes": true, "baseUrl": "http://x"}',
  );
  await mkdir(join(dir, "trusted"));
  await cp(skillsFixture, join(dir, "trusted", "skills"), { recursive: true }).catch(() =>
    mkdir(join(dir, "trusted", "skills")),
  );
  await writeFile(
    join(dir, "trusted", "bridle.config.json"),
    '{"model": "m", "yes": true, "skills": "skills"}',
  );
  await loadSettings({ cwd: join(dir, "trusted") }, env(), { ...quiet, ask: async () => "y" });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test("loadSettings", async ({ bench }) => {
  await bench("no workspace config", async () => {
    await loadSettings({ cwd: join(dir, "plain") }, env(), quiet);
  }).run();
  await bench("untrusted workspace config", async () => {
    await loadSettings({ cwd: join(dir, "untrusted") }, env(), quiet);
  }).run();
  await bench("remembered trust, skills folder fingerprinted", async () => {
    const settings = await loadSettings({ cwd: join(dir, "trusted") }, env(), quiet);
    if (!settings.yes) throw new Error("the remembered trust did not apply");
  }).run();
});
