import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, bench, describe } from "vitest";
import { BubblewrapRunner, sandboxPolicy } from "../src/index.js";
import { mountScanner, treeMounts } from "../src/sandbox/agent-config.js";

// What the bubblewrap runner adds to each command to derive its mounts: a walk of the workspace for
// protected paths and secrets. A repository of realistic size — 3,000 files in 330 folders, a git history,
// a few secrets in subfolders, an agent folder — measured three ways in one run: the runner's whole
// argument list with the walk's listings kept (every command after the first), the same after a command
// made one new file (one folder listed again), and a cold walk (the first command of a runner). Printed
// beside a bare `bwrap … true`, the cost every sandboxed command pays anyway.

const dir = mkdtempSync(join(tmpdir(), "bridle-mounts-bench-"));
let files = 0;
for (let a = 0; a < 10; a++) {
  for (let b = 0; b < 32; b++) {
    const folder = join(dir, a < 6 ? "src" : "test", `area${a}`, `mod${b}`);
    mkdirSync(folder, { recursive: true });
    for (let c = 0; c < 9; c++, files++)
      writeFileSync(join(folder, `file${c}.ts`), `export const x = ${c};\n`);
  }
}
for (const path of ["src/area1/mod3/.env", "test/area7/mod2/fixture.pem", "config/prod.env"]) {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), "SECRET\n");
  files++;
}
mkdirSync(join(dir, ".bridle", "agents"), { recursive: true });
mkdirSync(join(dir, ".bridle", "shell-output"), { recursive: true });
writeFileSync(join(dir, ".bridle", "agents", "helper.md"), "# helper\n");
writeFileSync(join(dir, "bridle.config.json"), "{}\n");
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: dir, stdio: "ignore" });
git("init", "-q", "-b", "main");
git("add", ".");
git("commit", "-qm", "init");

const probe = await BubblewrapRunner.probe();
const runner = new BubblewrapRunner();
const policy = sandboxPolicy();
const request = { cwd: dir, writableRoots: [dir] };
const mountsRequest = { writableRoots: [dir], shownTrees: [], maskSecrets: true };
const samples: Record<string, number[]> = { kept: [], "one new file": [], cold: [], "bwrap true": [] };
let created = 0;

function timed(name: string, run: () => unknown): void {
  const start = performance.now();
  run();
  samples[name]?.push(performance.now() - start);
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

describe(`mounts of a workspace of ${files} files (per command)`, () => {
  bench(
    "interleaved: kept listings, after one new file, cold walk, bwrap true",
    () => {
      timed("kept", () => runner.args(request, policy));
      writeFileSync(join(dir, "src", `area${created % 6}`, `mod${created % 32}`, `new${created++}.ts`), "\n");
      timed("one new file", () => runner.args(request, policy));
      timed("cold", () => treeMounts(mountScanner(), mountsRequest));
      if (probe.available) {
        const args = runner.args(request, policy);
        timed("bwrap true", () => execFileSync(runner.bwrap, [...args, "--", "/bin/true"]));
      }
    },
    { time: 8_000, warmupIterations: 2 },
  );
});

afterAll(() => {
  console.log(
    `\nmounts per command, ${files} files (${treeMounts(mountScanner(), mountsRequest).length} mounts):`,
  );
  console.table(
    Object.entries(samples).map(([name, values]) => ({
      name,
      "median ms": Number(percentile(values, 50).toFixed(3)),
      "p99 ms": Number(percentile(values, 99).toFixed(3)),
      samples: values.length,
    })),
  );
  const bwrap = samples["bwrap true"] ?? [];
  if (bwrap.length > 0)
    console.log(
      `kept listings / bwrap true: ${(percentile(samples.kept ?? [], 50) / percentile(bwrap, 50)).toFixed(2)} (medians)`,
    );
  rmSync(dir, { recursive: true, force: true });
});
