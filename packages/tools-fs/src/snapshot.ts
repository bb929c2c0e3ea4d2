import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { stat } from "node:fs/promises";

/**
 * What a run saw of a file. `hash` (SHA-256 of the bytes) is there whenever the whole file was read;
 * a paged read of a very large file keeps only the stat fields, which then decide on their own.
 */
export interface FileSnapshot {
  readonly size: number;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
  readonly hash?: string;
}

export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function snapshotOf(stats: BigIntStats, bytes?: Uint8Array): FileSnapshot {
  const base = { size: Number(stats.size), mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs, ino: stats.ino };
  return bytes === undefined ? base : { ...base, hash: hashBytes(bytes) };
}

export async function statSnapshot(path: string): Promise<FileSnapshot> {
  return snapshotOf(await stat(path, { bigint: true }));
}

/**
 * Whether `now` is the file `seen` describes. Content decides when both carry a hash (timestamps are
 * coarse: two writes a millisecond apart can share an mtime); otherwise every stat field must agree.
 */
export function sameContent(seen: FileSnapshot, now: FileSnapshot): boolean {
  if (seen.hash !== undefined && now.hash !== undefined) return seen.hash === now.hash;
  return (
    seen.size === now.size &&
    seen.mtimeNs === now.mtimeNs &&
    seen.ctimeNs === now.ctimeNs &&
    seen.ino === now.ino
  );
}
