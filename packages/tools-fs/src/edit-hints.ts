/**
 * Where in a file an old_string that did not match was most likely meant to go, ranked by how much of the
 * whole old_string each place matches (never by its first line alone), and the current lines there, so
 * the model can retry without another read.
 */

/** A 1-based inclusive span of lines and how well it matches old_string (0..1). */
export interface LineRegion {
  readonly from: number;
  readonly to: number;
  readonly score: number;
  /** Lines of old_string equal to their counterpart apart from whitespace. */
  readonly equalLines: number;
  readonly totalLines: number;
}

const MAX_SHOWN_LINES = 20;
const MAX_LINE_CHARS = 200;
const MAX_SHOWN_CHARS = 1_200;
const MAX_OCCURRENCES_PER_LINE = 200;
const MAX_RESCORED = 12;

const squash = (line: string) => line.replace(/\s+/g, " ").trim();

/** Lines of a text without their endings; a final newline adds no empty last line. */
export function splitLines(text: string): string[] {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Similarity of two strings (0..1): Dice's coefficient over character pairs, whitespace squashed. */
export function textSimilarity(a: string, b: string): number {
  const x = squash(a);
  const y = squash(b);
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i < x.length - 1; i++) {
    const pair = x.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < y.length - 1; i++) {
    const pair = y.slice(i, i + 2);
    const left = pairs.get(pair) ?? 0;
    if (left > 0) {
      shared++;
      pairs.set(pair, left - 1);
    }
  }
  return (2 * shared) / (x.length + y.length - 2);
}

/**
 * The places whose lines best match old_string's lines, best first (ties all kept). Candidates come from
 * lines equal apart from whitespace, each voting for where old_string would start; the leading ones, and
 * every line when no line is equal, are then scored over the whole of old_string.
 */
export function closestRegions(text: string, oldString: string): LineRegion[] {
  const wanted = splitLines(oldString.replace(/^(\r?\n)+|(\r?\n)+$/g, ""));
  const lines = splitLines(text);
  const m = wanted.length;
  if (m === 0 || lines.length === 0 || wanted.every((line) => squash(line) === "")) return [];
  const byText = new Map<string, number[]>();
  for (const [index, line] of lines.entries()) {
    const key = squash(line);
    if (key === "") continue;
    const list = byText.get(key);
    if (!list) byText.set(key, [index]);
    else if (list.length < MAX_OCCURRENCES_PER_LINE) list.push(index);
  }
  const votes = new Map<number, number>();
  for (const [i, line] of wanted.entries()) {
    for (const j of byText.get(squash(line)) ?? []) votes.set(j - i, (votes.get(j - i) ?? 0) + 1);
  }
  let starts = [...votes.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, MAX_RESCORED)
    .map(([start]) => start);
  // No line is equal even apart from whitespace: every place is a candidate, scored on similarity.
  if (starts.length === 0 && lines.length * m <= 200_000) {
    starts = Array.from({ length: Math.max(1, lines.length - m + 1) }, (_, start) => start);
  }
  const regions: (LineRegion & { readonly exact: number })[] = [];
  for (const start of starts) {
    let total = 0;
    let equal = 0;
    let exact = 0;
    for (let i = 0; i < m; i++) {
      const line = lines[start + i];
      if (line === undefined) continue;
      const s = textSimilarity(wanted[i] as string, line);
      total += s;
      if (s === 1) equal++;
      if (line.trimEnd() === (wanted[i] as string).trimEnd()) exact++;
    }
    const from = Math.max(0, start);
    const to = Math.min(lines.length, start + m) - 1;
    if (to < from) continue;
    regions.push({ from: from + 1, to: to + 1, score: total / m, equalLines: equal, totalLines: m, exact });
  }
  // Equal apart from whitespace, the place whose indentation also matches ranks first.
  regions.sort((a, b) => b.score - a.score || b.exact - a.exact || a.from - b.from);
  const best = regions[0];
  if (!best || best.score < 0.5) return [];
  return regions
    .filter((region) => region.score === best.score && region.exact === best.exact)
    .map(({ exact: _, ...region }) => region);
}

/** Lines `from`..`to` of a text, numbered as read_file numbers them, bounded in count and width. */
export function numberedLines(text: string, from: number, to: number): string {
  const lines = splitLines(text);
  const last = Math.min(to, lines.length, from + MAX_SHOWN_LINES - 1);
  const width = String(last).length;
  const out: string[] = [];
  let chars = 0;
  let shownTo = Math.max(1, from) - 1;
  for (let n = Math.max(1, from); n <= last; n++) {
    const line = lines[n - 1] as string;
    const row = `${String(n).padStart(width, " ")}\t${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} …` : line}`;
    chars += row.length + 1;
    // The whole refusal must fit core's 2,000-character bound on a failure's text.
    if (chars > MAX_SHOWN_CHARS && out.length > 0) break;
    out.push(row);
    shownTo = n;
  }
  if (shownTo < to)
    out.push(`[… lines ${shownTo + 1}-${to} not shown; read_file with offset=${shownTo + 1}]`);
  return out.join("\n");
}

/** The hint for an old_string that matched nowhere: the best places and their current lines. */
export function closestHint(text: string, oldString: string): string | undefined {
  const regions = closestRegions(text, oldString);
  const best = regions[0];
  if (!best) return undefined;
  const span = (r: LineRegion) => (r.from === r.to ? `line ${r.from}` : `lines ${r.from}-${r.to}`);
  const how =
    best.equalLines === best.totalLines
      ? "matches apart from whitespace"
      : `is closest (${best.equalLines} of ${best.totalLines} line${best.totalLines === 1 ? "" : "s"} equal apart from whitespace)`;
  if (regions.length > 1) {
    return `Did you mean one of ${regions
      .slice(0, 5)
      .map(span)
      .join(
        ", ",
      )}? Each ${how}; include more lines so old_string matches one. ${span(best)} now read:\n${numberedLines(text, best.from, best.to)}`;
  }
  return `Did you mean ${span(best)}? Its text ${how}. Current text there (copy old_string from it, without the line numbers):\n${numberedLines(text, best.from, best.to)}`;
}
