// One measured process for footprint.bench.ts: import the built package as a library user does, judge
// CHECKS distinct commands, print per-check time and peak memory (this process, and the policy process
// when there is one) as JSON.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { CommandPolicy } = await import(new URL("../dist/index.js", import.meta.url).href);
const dir = mkdtempSync(join(tmpdir(), "bridle-footprint-"));
mkdirSync(join(dir, "src"));
writeFileSync(join(dir, "src", "a.ts"), "export {};\n");
const shapes = [
  (i) => `cat src/m${i}.ts`,
  (i) => `git status --short && git diff --stat -- src/m${i}.ts`,
  (i) => `rg -n 'x${i}' src | head -5`,
  (i) => `for f in src/*${i}.ts; do wc -l "$f"; done`,
  (i) => `find src -name '*${i}.ts' -not -path './node_modules/*'`,
  (i) => `echo $(date) && pwd && echo ${i}`,
  (i) => `sed -n '${i},${i + 60}p' src/m${i}.ts`,
  (i) => `jq '.scripts.t${i}' package.json`,
  (i) => `git log --oneline -n ${i} -- src/m${i}.ts`,
  (i) => `mkdir -p build/out${i} && cp src/m${i}.ts build/out${i}/`,
  (i) => `bash -c "cat src/m${i}.ts | grep -c x"`,
];
const checks = Number(process.env.CHECKS ?? 2100);
const policy = new CommandPolicy(process.env.ISOLATION ? { isolation: process.env.ISOLATION } : {});
const started = performance.now();
for (let i = 0; i < checks; i++) await policy.check(shapes[i % shapes.length](i), dir);
const msPerCheck = (performance.now() - started) / checks;
let policyProcessPeakMB = 0;
const children = readFileSync(`/proc/self/task/${process.pid}/children`, "utf8").trim().split(/\s+/);
for (const pid of children.filter(Boolean)) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  policyProcessPeakMB += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    msPerCheck,
    peakMB: process.resourceUsage().maxRSS / 1024,
    policyProcessPeakMB,
  }),
);
