import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, test } from "vitest";

// A library user's footprint: a plain `node` process (no V8 flags) that imports the built package and
// judges 2,100 distinct commands, beside the same with the flag the CLI used to need and the same
// forced to judge in place (what every plain process did before the policy process existed). Each
// variant runs three fresh processes; the table shows medians.

const child = fileURLToPath(new URL("./footprint-child.mjs", import.meta.url));
const variants = {
  "plain node (judges in a policy process)": { flags: [], isolation: "" },
  "node --liftoff-only (judges in place)": { flags: ["--liftoff-only"], isolation: "" },
  "plain node forced in place (before)": { flags: [], isolation: "inline" },
} as const;
type Name = keyof typeof variants;
interface Sample {
  msPerCheck: number;
  peakMB: number;
  policyProcessPeakMB: number;
}
const samples = new Map<Name, Sample[]>();

function measure(name: Name): void {
  const { flags, isolation } = variants[name];
  const out = execFileSync(process.execPath, [...flags, child], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "", ISOLATION: isolation, CHECKS: "2100" },
  });
  samples.set(name, [...(samples.get(name) ?? []), JSON.parse(out) as Sample]);
}

test("policy footprint: 2,100 checks in a fresh process", async ({ bench }) => {
  for (const name of Object.keys(variants) as Name[])
    await bench(name, () => measure(name)).run({ iterations: 3, time: 0, warmupIterations: 0 });
});

afterAll(() => {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const rows = [...samples].map(([name, runs]) => ({
    variant: name,
    "ms per check": Number(median(runs.map((s) => s.msPerCheck)).toFixed(3)),
    "peak MB (process)": Math.round(median(runs.map((s) => s.peakMB))),
    "peak MB (policy process)": Math.round(median(runs.map((s) => s.policyProcessPeakMB))),
  }));
  console.table(rows);
});
