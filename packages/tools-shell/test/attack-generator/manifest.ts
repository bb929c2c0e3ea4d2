import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { join, sep } from "node:path";

/** One path of a world as the harness compares it. */
export interface Entry {
  readonly type: "file" | "dir" | "link" | "special";
  readonly mode: number;
  /** Files: a hash of the content (a git index: of its entries); links: the target. */
  readonly content: string;
  /** Files: mtime in ms (a touch is a write); undefined for the rest and for git's index. */
  readonly mtimeMs: number | undefined;
  /** Files: the bytes, read once for both the hash and the canary search. */
  readonly bytes: Buffer | undefined;
}

/** Every path under `root` (relative, `/`-separated), links not followed. */
export function manifest(root: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const walk = (dir: string, prefix: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const rel = prefix === "" ? name : `${prefix}/${name}`;
      const entry = describe(path);
      if (!entry) continue;
      entries.set(rel, entry);
      if (entry.type === "dir") walk(path, rel);
    }
  };
  walk(root, "");
  return entries;
}

function describe(path: string): Entry | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (!stats) return undefined;
  const mode = stats.mode & 0o7777;
  if (stats.isSymbolicLink())
    return { type: "link", mode: 0, content: readlinkSync(path), mtimeMs: undefined, bytes: undefined };
  if (stats.isDirectory()) return { type: "dir", mode, content: "", mtimeMs: undefined, bytes: undefined };
  if (!stats.isFile()) return { type: "special", mode, content: "", mtimeMs: undefined, bytes: undefined };
  const bytes = stats.size > 4 << 20 ? Buffer.from(`${stats.size} bytes`) : readFileSync(path);
  // git rewrites its index whenever the files' stat data differs from what it recorded: the entries it
  // tracks are what matter, not the stat data it caches.
  const index = path.endsWith(`${sep}.git${sep}index`);
  const content = createHash("sha1")
    .update(index ? indexEntries(bytes) : bytes)
    .digest("hex")
    .slice(0, 16);
  return { type: "file", mode, content, mtimeMs: index ? undefined : stats.mtimeMs, bytes };
}

export function sameEntry(a: Entry, b: Entry): boolean {
  return a.type === b.type && a.mode === b.mode && a.content === b.content && a.mtimeMs === b.mtimeMs;
}

export function showEntry(entry: Entry): string {
  const mode = entry.mode.toString(8);
  if (entry.type === "link") return `link to ${entry.content}`;
  if (entry.type === "file") return `file ${mode} ${entry.content} mtime ${entry.mtimeMs ?? "-"}`;
  return `${entry.type} ${mode}`;
}

/** The (mode, object, path) entries of a git index (versions 2 and 3), without stat data or extensions. */
function indexEntries(index: Buffer): string {
  if (index.length < 12 || index.toString("latin1", 0, 4) !== "DIRC") return index.toString("latin1");
  const version = index.readUInt32BE(4);
  if (version !== 2 && version !== 3) return index.toString("latin1");
  const count = index.readUInt32BE(8);
  const entries: string[] = [];
  let at = 12;
  for (let i = 0; i < count && at + 62 <= index.length; i++) {
    const mode = index.readUInt32BE(at + 24).toString(8);
    const object = index.toString("hex", at + 40, at + 60);
    const flags = index.readUInt16BE(at + 60);
    const nameAt = at + 62 + (version === 3 && (flags & 0x4000) !== 0 ? 2 : 0);
    const end = index.indexOf(0, nameAt);
    entries.push(`${mode} ${object} ${index.toString("utf8", nameAt, end)}`);
    // Each entry is padded with 1 to 8 NULs to a multiple of 8 bytes from its start.
    at += Math.floor((end - at + 8) / 8) * 8;
  }
  return entries.join("\n");
}

/**
 * Put `root` back to the template's state, touching only what differs: paths the template lacks are
 * removed, the rest restored from the template's copy with its mode and mtime (whole seconds, so the
 * restored mtime is exact).
 */
export function repair(
  templateRoot: string,
  template: ReadonlyMap<string, Entry>,
  root: string,
  now: ReadonlyMap<string, Entry>,
): void {
  for (const [rel] of now) if (!template.has(rel)) rmSync(join(root, rel), { recursive: true, force: true });
  // Parents come before their children in a walk's order, so a restored folder exists for its files.
  for (const [rel, entry] of template) {
    const current = now.get(rel);
    const path = join(root, rel);
    if (current && sameEntry(current, entry) && lstatSync(path, { throwIfNoEntry: false })) continue;
    if (entry.type === "dir") {
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats && !stats.isDirectory()) rmSync(path, { force: true });
      mkdirSync(path, { recursive: true });
      chmodSync(path, entry.mode);
      continue;
    }
    rmSync(path, { recursive: true, force: true });
    const source = join(templateRoot, rel);
    if (entry.type === "link") {
      symlinkSync(entry.content, path);
      const stats = lstatSync(source);
      lutimesSync(path, stats.atime, stats.mtime);
    } else {
      copyFileSync(source, path);
      chmodSync(path, entry.mode);
      const stats = lstatSync(source);
      utimesSync(path, stats.atime, stats.mtime);
    }
  }
}
