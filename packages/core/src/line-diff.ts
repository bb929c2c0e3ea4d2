/** One hunk of a line diff: where it starts on each side and the lines it removes and adds. */
export interface Hunk {
  /** 1-based first line of the hunk's changed lines in the old text (0 when it only inserts at the top). */
  readonly oldStart: number;
  /** 1-based first line of the hunk's changed lines in the new text. */
  readonly newStart: number;
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

export interface LineDiff {
  readonly added: number;
  readonly removed: number;
  readonly hunks: readonly Hunk[];
}

// Past this many differences the middle is counted as replaced whole: exact hunks of a rewrite are not
// worth the quadratic memory of the trace.
const MAX_EDIT_DISTANCE = 2_000;

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A line diff (Myers) of two texts, with adjacent changes grouped into hunks. */
export function diffLines(before: string, after: string): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops = middleOps(a.slice(start, endA), b.slice(start, endB));
  const hunks: Hunk[] = [];
  let x = start;
  let y = start;
  let current: { oldStart: number; newStart: number; removed: string[]; added: string[] } | undefined;
  let added = 0;
  let removed = 0;
  for (const op of ops) {
    if (op === EQUAL) {
      if (current) hunks.push(current);
      current = undefined;
      x++;
      y++;
      continue;
    }
    current ??= { oldStart: x + 1, newStart: y + 1, removed: [], added: [] };
    if (op === DELETE) {
      current.removed.push(a[x] ?? "");
      removed++;
      x++;
    } else {
      current.added.push(b[y] ?? "");
      added++;
      y++;
    }
  }
  if (current) hunks.push(current);
  return { added, removed, hunks };
}

const EQUAL = 0;
const DELETE = 1;
const INSERT = 2;

function middleOps(a: readonly string[], b: readonly string[]): number[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [...new Array<number>(n).fill(DELETE), ...new Array<number>(m).fill(INSERT)];
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds v's diagonals -d-1..d+1 as they were before step d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))
          ? (v[offset + k + 1] ?? 0)
          : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m, d);
    }
  }
  return [...new Array<number>(n).fill(DELETE), ...new Array<number>(m).fill(INSERT)];
}

function backtrack(trace: readonly Int32Array[], n: number, m: number, distance: number): number[] {
  const ops: number[] = [];
  let x = n;
  let y = m;
  for (let d = distance; d > 0; d--) {
    const v = trace[d] as Int32Array;
    const at = (k: number) => v[k + d + 1] ?? 0;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(EQUAL);
      x--;
      y--;
    }
    if (x === prevX) {
      ops.push(INSERT);
      y--;
    } else {
      ops.push(DELETE);
      x--;
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push(EQUAL);
    x--;
    y--;
  }
  return ops.reverse();
}
