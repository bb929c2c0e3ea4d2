import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, test } from "vitest";
import { CommandPolicy, loadBashParser } from "../src/index.js";

// The policy's time per check on what an agent runs all day: a corpus of ~300 commands (git, rg, ls,
// cat, sed -n, find, jq, test and build runners, compound lines) against a realistic repository (a git
// checkout with sources, tests, a .env). Each round checks the whole corpus; the medians and p99 of
// single checks are printed at the end, beside the bare tree-sitter parse of the same commands.

const dir = mkdtempSync(join(tmpdir(), "bridle-policy-bench-"));
const files: string[] = [];
for (const folder of ["src", "src/core", "src/tools", "test", "docs"])
  mkdirSync(join(dir, folder), { recursive: true });
for (let i = 0; i < 20; i++) {
  for (const path of [`src/core/mod${i}.ts`, `src/tools/tool${i}.ts`, `test/mod${i}.test.ts`]) {
    writeFileSync(join(dir, path), `export const x${i} = ${i}; // TODO foo\n`);
    files.push(path);
  }
}
writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench", scripts: { test: "vitest" } }));
writeFileSync(join(dir, "README.md"), "# bench\n");
writeFileSync(join(dir, "tsconfig.json"), "{}\n");
writeFileSync(join(dir, ".gitignore"), "node_modules\n.env\n");
writeFileSync(join(dir, ".env"), "KEY=x\n");
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: dir, stdio: "ignore" });
git("init", "-q", "-b", "main");
git("add", ".");
git("commit", "-qm", "init");

const sample = (i: number) => files[(i * 7) % files.length] as string;
const corpus: string[] = [];
for (let i = 0; i < 12; i++) {
  const f = sample(i);
  const g = sample(i + 3);
  corpus.push(
    `cat ${f}`,
    `head -n 40 ${f}`,
    `tail -n 20 ${g}`,
    `sed -n '${i + 1},${i + 60}p' ${f}`,
    `wc -l ${f} ${g}`,
    `rg -n 'x${i}' src`,
    `rg -l TODO src test`,
    `grep -rn "x${i}" src`,
    `git diff -- ${f}`,
    `git log --oneline -n ${i + 5} -- ${g}`,
    `git blame -L 1,20 ${f}`,
    `git show HEAD:${f}`,
    `diff -u ${f} ${g}`,
    `ls -la ${f.slice(0, f.lastIndexOf("/"))}`,
    `cat ${f} | grep -n foo | head -5`,
    `cd src && rg -n x${i} .`,
    `echo "x${i}" >> notes.txt`,
    `mkdir -p build/out${i} && cp ${f} build/out${i}/`,
    `pnpm test -- ${g}`,
    `npx vitest run ${g}`,
    `find src -name '*${i}.ts'`,
    `jq '.scripts' package.json`,
    `git status --short && git diff --stat`,
    `ls src/core | wc -l`,
  );
}
corpus.push(
  "git status",
  "git diff",
  "git diff --stat",
  "git log --oneline -20",
  "git log -p -1",
  "git show --stat HEAD",
  "git branch -a",
  "git rev-parse HEAD",
  "git ls-files | head",
  "rg --files",
  "rg -n 'export const' src",
  "ls",
  "ls -la",
  "tree -L 2 src",
  "find . -name '*.ts' -not -path './node_modules/*'",
  "find src -type f | wc -l",
  "jq . package.json",
  "npm test",
  "pnpm build",
  "pnpm lint",
  "pnpm typecheck",
  "pytest -q",
  "make test",
  "cargo test",
  "go test ./...",
  "cat .env",
  "curl -s http://localhost:3000/health",
  "echo $(date) && pwd",
  'for f in src/core/*.ts; do wc -l "$f"; done',
  "git add -A && git commit -m wip",
);

const policy = new CommandPolicy();
const parser = await loadBashParser();
const samples: Record<string, number[]> = { check: [], parse: [], allowed: [], asked: [] };
const decisions = { allow: 0, ask: 0, deny: 0 };
// What the corpus asks or denies, with the first reason: the usefulness side of the figures.
const refused = new Map<string, string>();
const perCommand = new Map<string, number[]>();

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

test(`command policy on a corpus of ${corpus.length} typical agent commands`, async ({ bench }) => {
  await bench("check every command of the corpus (one round), then parse each alone", async () => {
    for (const command of corpus) {
      const start = performance.now();
      const result = await policy.check(command, dir);
      const took = performance.now() - start;
      samples.check?.push(took);
      perCommand.set(command, [...(perCommand.get(command) ?? []), took]);
      (result.decision === "allow" ? samples.allowed : samples.asked)?.push(took);
      decisions[result.decision]++;
      if (result.decision !== "allow" && !refused.has(command))
        refused.set(command, `${result.decision}: ${result.reasons[0]?.slice(0, 100)}`);
      const parseStart = performance.now();
      parser.parse(command)?.delete();
      samples.parse?.push(performance.now() - parseStart);
    }
  }).run({ time: 8_000, warmupIterations: 2 });
});

afterAll(() => {
  const rows = Object.entries(samples).map(([name, values]) => ({
    name,
    "median ms": Number(percentile(values, 50).toFixed(3)),
    "p99 ms": Number(percentile(values, 99).toFixed(3)),
    samples: values.length,
  }));
  console.log(
    `\nper check (${corpus.length} commands; decisions over all rounds: ${JSON.stringify(decisions)}):`,
  );
  console.table(rows);
  const check = samples.check ?? [];
  const parse = samples.parse ?? [];
  console.log(
    `check / parse alone: median ${(percentile(check, 50) / percentile(parse, 50)).toFixed(1)}x, p99 ${(percentile(check, 99) / percentile(parse, 99)).toFixed(1)}x`,
  );
  const slowest = [...perCommand]
    .map(([command, values]) => [command, percentile(values, 50)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5);
  console.log("\nslowest commands (median ms):");
  for (const [command, ms] of slowest) console.log(`  ${ms.toFixed(3)}  ${command}`);
  console.log(`\nasked or denied (${refused.size} distinct commands):`);
  for (const [command, why] of refused) console.log(`  ${command.slice(0, 60).padEnd(60)} ${why}`);
  rmSync(dir, { recursive: true, force: true });
});
