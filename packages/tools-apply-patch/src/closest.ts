import { asciiPunctuation } from "./punctuation.js";

/** Index entries kept per distinct line: a line like `}` occurs everywhere and says little. */
const MAX_POSITIONS_PER_LINE = 64;
/** Lines scanned for a lone similar line when no expected line occurs in the file. */
const MAX_SIMILARITY_SCAN = 50_000;

const key = (line: string) => asciiPunctuation(line).trim();

/**
 * Where the file comes closest to the expected lines: the start that the most expected lines agree on
 * (each expected line found in the file votes for the start it implies), else the line most similar to
 * the first non-blank expected line. Linear in the file and the expected lines.
 */
export function closestStart(
  file: readonly string[],
  expected: readonly string[],
  from = 0,
): number | undefined {
  const wanted = new Map<string, number[]>();
  expected.forEach((line, offset) => {
    const k = key(line);
    if (k === "") return;
    const offsets = wanted.get(k);
    if (offsets) offsets.push(offset);
    else wanted.set(k, [offset]);
  });
  if (wanted.size === 0) return undefined;
  const votes = new Map<number, number>();
  const seen = new Map<string, number>();
  for (let index = from; index < file.length; index++) {
    const k = key(file[index] as string);
    const offsets = wanted.get(k);
    if (!offsets) continue;
    const count = (seen.get(k) ?? 0) + 1;
    seen.set(k, count);
    if (count > MAX_POSITIONS_PER_LINE) continue;
    for (const offset of offsets) {
      const start = Math.max(0, index - offset);
      votes.set(start, (votes.get(start) ?? 0) + 1);
    }
  }
  let best: number | undefined;
  let bestVotes = 0;
  for (const [start, count] of votes) {
    if (count > bestVotes || (count === bestVotes && best !== undefined && start < best)) {
      best = start;
      bestVotes = count;
    }
  }
  if (best !== undefined) return best;
  const probe = expected.find((line) => key(line) !== "");
  return probe === undefined ? undefined : mostSimilarLine(file, probe, from);
}

/** The line most like `probe` by shared character pairs (Dice coefficient), or undefined when none shares any. */
export function mostSimilarLine(file: readonly string[], probe: string, from = 0): number | undefined {
  const target = pairs(key(probe));
  if (target.size === 0) return undefined;
  let best: number | undefined;
  let bestScore = 0;
  const end = Math.min(file.length, from + MAX_SIMILARITY_SCAN);
  for (let index = from; index < end; index++) {
    const candidate = pairs(key(file[index] as string));
    if (candidate.size === 0) continue;
    let shared = 0;
    for (const pair of candidate) if (target.has(pair)) shared++;
    const score = (2 * shared) / (candidate.size + target.size);
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  }
  return bestScore >= 0.3 ? best : undefined;
}

function pairs(text: string): Set<string> {
  const out = new Set<string>();
  const lower = text.toLowerCase();
  for (let index = 0; index + 1 < lower.length && index < 400; index++)
    out.add(lower.slice(index, index + 2));
  return out;
}
