import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { recordedStreamsDir, sharedFixtures, tempWorkspace } from "../src/index.js";

const execute = promisify(execFile);
const vitestBin = fileURLToPath(new URL("../node_modules/.bin/vitest", import.meta.url));
// The module itself, not the vitest entry: the entry also loads the suites, which import @bridle/core
// through its build, absent in a fresh clone.
const suiteModule = fileURLToPath(new URL("../src/shared-fixtures-suite.ts", import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-shared-fixtures-"));
  vi.stubEnv("BRIDLE_SHARED_FIXTURES", "");
  vi.stubEnv("BRIDLE_REQUIRE_SHARED_FIXTURES", "");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await cleanup();
});

describe("sharedFixtures", () => {
  it("finds shared/fixtures/<name> walking up from a folder inside a checkout beside it", async () => {
    await mkdir(join(dir, "shared", "fixtures", "provider-streams"), { recursive: true });
    const deep = join(dir, "main", "packages", "x");
    await mkdir(deep, { recursive: true });
    expect(sharedFixtures("provider-streams", deep)).toEqual({
      dir: join(dir, "shared", "fixtures", "provider-streams"),
    });
    expect(recordedStreamsDir(deep)).toBe(join(dir, "shared", "fixtures", "provider-streams"));
  });

  it("says why when nothing is beside the checkout, and BRIDLE_SHARED_FIXTURES overrides the search", async () => {
    const clone = join(dir, "clone");
    await mkdir(clone);
    const absent = sharedFixtures("agent-skills", clone);
    expect(absent.dir).toBeUndefined();
    expect(absent.reason).toMatch(/no shared\/fixtures\/agent-skills beside the checkout/);
    expect(recordedStreamsDir(clone)).toBeUndefined();

    await mkdir(join(dir, "elsewhere", "agent-skills"), { recursive: true });
    vi.stubEnv("BRIDLE_SHARED_FIXTURES", join(dir, "elsewhere"));
    expect(sharedFixtures("agent-skills", clone).dir).toBe(join(dir, "elsewhere", "agent-skills"));
    // Set but without the named folder: absent, even though a walk up would have found one.
    await mkdir(join(clone, "shared", "fixtures", "provider-streams"), { recursive: true });
    expect(sharedFixtures("provider-streams", clone).reason).toMatch(/from BRIDLE_SHARED_FIXTURES/);
  });
});

describe("describeWithSharedFixtures, in a real vitest run", () => {
  async function runSuite(env: Record<string, string>) {
    const project = join(dir, "project");
    await mkdir(project, { recursive: true });
    await writeFile(
      join(project, "fixtures.test.ts"),
      `import { readdirSync } from "node:fs";
import { expect, it } from "vitest";
import { describeWithSharedFixtures } from ${JSON.stringify(suiteModule)};
describeWithSharedFixtures("skills", "the skills", (root) => {
  const names = readdirSync(root);
  it("lists them", () => expect(names).toEqual(["one"]));
});
`,
    );
    return execute(vitestBin, ["run", "--reporter=verbose", "--root", project], {
      cwd: project,
      env: { ...process.env, NO_COLOR: "1", BRIDLE_REQUIRE_SHARED_FIXTURES: "", ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        out: error.stdout + error.stderr,
      }),
    );
  }

  it("runs the body where the fixtures are, and reports one skipped test with the reason where not", async () => {
    await mkdir(join(dir, "fx", "skills", "one"), { recursive: true });
    const present = await runSuite({ BRIDLE_SHARED_FIXTURES: join(dir, "fx") });
    expect(present.out).toMatch(/the skills > lists them/);
    expect(present.out).toMatch(/Tests\s+1 passed/);
    expect(present.code).toBe(0);

    const absent = await runSuite({ BRIDLE_SHARED_FIXTURES: join(dir, "nowhere") });
    expect(absent.out).toMatch(
      /the skills > skipped: .*nowhere\/skills \(from BRIDLE_SHARED_FIXTURES\) does not exist/,
    );
    expect(absent.out).toMatch(/Tests\s+1 skipped/);
    expect(absent.code).toBe(0);

    const required = await runSuite({
      BRIDLE_SHARED_FIXTURES: join(dir, "nowhere"),
      BRIDLE_REQUIRE_SHARED_FIXTURES: "1",
    });
    expect(required.out).toMatch(/BRIDLE_REQUIRE_SHARED_FIXTURES is set, but/);
    expect(required.code).toBe(1);
  });
});
