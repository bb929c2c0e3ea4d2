import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, test } from "vitest";
import { BubblewrapRunner } from "../src/runners/bubblewrap.js";
import { mountScanner, mountsAndEntries, treeMounts } from "../src/sandbox/agent-config.js";
import { sandboxPolicy } from "../src/sandbox/policy.js";
import { quarantineCreated } from "../src/sandbox/quarantine.js";

// What the bubblewrap runner adds to each command: a walk of the workspace for protected paths and
// secrets before it (its mounts), and one after it (the protected paths it created, quarantined). A
// repository of realistic size — 3,000 files in 330 folders, a git history, a few secrets in subfolders,
// an agent folder — measured in one run: the runner's whole argument list with the walk's listings kept
// (every command after the first), the check after a command on kept listings, the argument list after a
// command made one new file (one folder listed again), and a cold walk (the first command of a runner).
// Printed beside a bare `bwrap … true`, the cost every sandboxed command pays anyway. Then this checkout
// as it is (read-only use; its node_modules make it the size of a real project), beside the floor of any
// walk that trusts no kept listing blindly: one lstat per folder.

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
const samples: Record<string, number[]> = {
  kept: [],
  "check after, kept": [],
  "one new file": [],
  cold: [],
  "bwrap true": [],
  "this repository, kept": [],
  "this repository, check after": [],
  "this repository, cold": [],
  "this repository, lstat per folder": [],
};
const quarantine = join(dir, "..", `${dir.split("/").pop()}-quarantine`);
const repository = resolve(import.meta.dirname, "..", "..", "..");
const repositoryRequest = { writableRoots: [repository], shownTrees: [], maskSecrets: true };
const repositoryScanner = mountScanner(10_000_000);
const repositoryFolders: string[] = [];
repositoryScanner.scan((tree) =>
  tree(repository, 0, (entry) => {
    if (entry.kind === "dir") repositoryFolders.push(entry.path);
    return 0;
  }),
);

/** The check after a command, on the listings the walk before it kept. */
function checkAfter(
  scanner: ReturnType<typeof mountScanner>,
  roots: string[],
  before: ReturnType<typeof mountsAndEntries>,
) {
  const { quarantined } = quarantineCreated({ scanner, writableRoots: roots, before, folder: quarantine });
  if (quarantined.length > 0) throw new Error("the bench's trees gained no protected path");
}
const checkScanner = mountScanner();
let created = 0;

async function timed(name: string, run: () => unknown): Promise<void> {
  const start = performance.now();
  await run();
  samples[name]?.push(performance.now() - start);
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

test(`mounts of a workspace of ${files} files (per command)`, async ({ bench }) => {
  await bench("interleaved: kept listings, after one new file, cold walk, bwrap true", async () => {
    await timed("kept", () => runner.args(request, policy));
    const before = mountsAndEntries(checkScanner, mountsRequest);
    await timed("check after, kept", () => checkAfter(checkScanner, [dir], before));
    writeFileSync(join(dir, "src", `area${created % 6}`, `mod${created % 32}`, `new${created++}.ts`), "\n");
    await timed("one new file", () => runner.args(request, policy));
    await timed("cold", () => treeMounts(mountScanner(), mountsRequest));
    if (probe.available) {
      const args = await runner.args(request, policy);
      await timed("bwrap true", () => execFileSync(runner.bwrap, [...args, "--", "/bin/true"]));
    }
  }).run({ time: 8_000, warmupIterations: 2 });
  await bench("this repository: kept listings, check after, cold walk, lstat per folder", async () => {
    let before: ReturnType<typeof mountsAndEntries> | undefined;
    await timed("this repository, kept", () => {
      before = mountsAndEntries(repositoryScanner, repositoryRequest);
    });
    if (before) {
      const view = before;
      await timed("this repository, check after", () => checkAfter(repositoryScanner, [repository], view));
    }
    await timed("this repository, cold", () => treeMounts(mountScanner(10_000_000), repositoryRequest));
    await timed("this repository, lstat per folder", () => {
      for (const folder of repositoryFolders) lstatSync(folder);
    });
  }).run({ time: 8_000, warmupIterations: 2 });
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
  const entries = repositoryScanner.scan((tree) => tree(repository, 0, () => 0));
  console.log(
    `this repository: ${repository}, ${entries} files and folders, ${repositoryFolders.length} folders`,
  );
  const bwrap = samples["bwrap true"] ?? [];
  if (bwrap.length > 0)
    console.log(
      `kept listings / bwrap true: ${(percentile(samples.kept ?? [], 50) / percentile(bwrap, 50)).toFixed(2)} (medians)`,
    );
  rmSync(dir, { recursive: true, force: true });
  rmSync(quarantine, { recursive: true, force: true });
});
