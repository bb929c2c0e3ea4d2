import type { ReviewFlag } from "./facts.js";
import type { AgentFileChange } from "./repo-state.js";

// Where the usual runners look for tests: JS/TS, Python, Go, Ruby and Rust conventions.
const TEST_PATH = [
  /(^|\/)(test|tests|__tests__|spec|specs)\//,
  /\.(test|spec)\.[cm]?[jt]sx?$/,
  /(^|\/)tests?\.[cm]?[jt]s$/,
  /(^|\/)test_[^/]+\.py$/,
  /_test\.(py|go)$/,
  /_spec\.rb$/,
];

// A line that asserts something, in the common frameworks' spellings.
const ASSERTION =
  /\b(expect|assert\w*|should|expectTypeOf)\s*[.(]|\bassert\s|\bt\.(equal|is|not|deepEqual|true|false|ok|throws|fatal|errorf?)\s*\(|\bassert(_eq|_ne)?!\s*\(|\bself\.assert\w*\s*\(|\brequire\.\w+\s*\(|\bpytest\.raises\s*\(/;

// A marker that stops tests from running, or (`.only`) every other test in the file.
const SKIP =
  /\b(it|test|describe|suite|context)\.(skip|todo|only)\b|\bx(it|test|describe)\s*\(|\bf(it|describe)\s*\(|@pytest\.mark\.(skip|skipif|xfail)\b|@unittest\.(skip|expectedFailure)\b|\bpytest\.skip\s*\(|\bt\.Skip(Now|f)?\s*\(|#\[ignore\]|\bskip\s*\(\s*["']/;

export function isTestPath(path: string): boolean {
  return TEST_PATH.some((pattern) => pattern.test(path));
}

/**
 * Flags for a test file the agent weakened: deleted, with fewer assertions than before, or with a skip
 * (or `.only`) marker added. Made through any tool, shell included: the diff is what is judged.
 */
export function weakenedTests(file: AgentFileChange): ReviewFlag[] {
  const { path } = file;
  if (!isTestPath(path) || file.binary) return [];
  if (file.change === "deleted") return [{ kind: "tests", path, note: "test file deleted" }];
  const flags: ReviewFlag[] = [];
  let removed = 0;
  let added = 0;
  for (const hunk of file.hunks) {
    removed += hunk.removed.filter((line) => ASSERTION.test(line)).length;
    added += hunk.added.filter((line) => ASSERTION.test(line)).length;
    const skipsBefore = hunk.removed.filter((line) => SKIP.test(line)).length;
    const skips = hunk.added.flatMap((line, i) => {
      const marker = SKIP.exec(line)?.[0];
      return marker ? [`\`${marker.trim()}\` at line ${hunk.newStart + i}`] : [];
    });
    if (skips.length > skipsBefore) {
      flags.push({ kind: "tests", path, note: `skip marker added: ${skips.slice(0, 3).join(", ")}` });
    }
  }
  if (removed > added) {
    flags.push({
      kind: "tests",
      path,
      note: `${removed - added} assertion${removed - added === 1 ? "" : "s"} removed (${removed} deleted, ${added} added)`,
    });
  }
  return flags;
}
