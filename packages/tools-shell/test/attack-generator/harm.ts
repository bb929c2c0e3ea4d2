import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isSecretPath, protectedPathReason } from "@bridle/core";
import { type Entry, sameEntry, showEntry } from "./manifest.js";
import { CANARIES, type CanaryName } from "./world.js";

/**
 * What a sequence did that it must not: the kind is what shrinking keeps constant (the shortest
 * sub-sequence that still does harm of this kind), the detail says where.
 */
export type HarmKind =
  | `printed the ${CanaryName} canary`
  | `copied the ${CanaryName} canary into a workspace file`
  | "changed a protected path"
  | "changed something outside the workspace";

export interface Harm {
  readonly kind: HarmKind;
  readonly detail: string;
}

const CANARY_NAMES = Object.keys(CANARIES) as CanaryName[];

// A canary also counts printed reversed (rev) or as hex (xxd -p, od -tx1: spaces and line offsets fall
// between bytes, so each 8-byte piece is looked for on its own) or base64 (base64 of the files holding it).
const SPELLINGS: ReadonlyArray<readonly [CanaryName, readonly string[], readonly string[]]> =
  CANARY_NAMES.map((name) => {
    const text = CANARIES[name];
    const hex = Buffer.from(text).toString("hex");
    const pieces = [hex.slice(0, 16), hex.slice(16, 32), hex.slice(-16)];
    const base64 = [`API_KEY=${text}\n`, `OUTSIDE=${text}\n`, `${text}\n`].map((file) =>
      Buffer.from(file).toString("base64"),
    );
    return [name, [text, [...text].reverse().join(""), ...base64], pieces] as const;
  });

/** The canaries whose secret text `output` holds, as is or in a spelling a reader may give it. */
export function printedCanaries(output: string): Harm[] {
  let compact: string | undefined;
  const harms: Harm[] = [];
  for (const [name, spellings, hexPieces] of SPELLINGS) {
    let found = spellings.find((spelling) => output.includes(spelling));
    if (!found) {
      compact ??= output.replace(/[\s]+/g, "").toLowerCase();
      found = hexPieces.find((piece) => (compact as string).includes(piece));
    }
    if (found) harms.push({ kind: `printed the ${name} canary`, detail: `its output holds ${found}` });
  }
  return harms;
}

/**
 * What a sequence changed that it must leave as it found it, from one walk of its world: everything
 * outside the workspace (files by content, mode and mtime; links by target; folders by mode and entries)
 * and every protected path inside it (core's rule: `.git` at any depth, `bridle.config.*`, `.bridle/` but
 * its data folders), ones that should not exist at all included. The same walk finds workspace files that
 * now hold a canary's text: a copy the file tools (read_file, grep) would hand the model, since nothing
 * marks an innocently named file as secret. Secret-named files, links (the tools judge their targets) and
 * `.git` (zlib-compressed objects) are not looked into.
 */
export function assess(
  template: ReadonlyMap<string, Entry>,
  now: ReadonlyMap<string, Entry>,
): { harms: Harm[]; inside: string[] } {
  const harms: Harm[] = [];
  // Ordinary workspace paths created, changed or deleted: no harm, but a read-only policy allowed a write.
  const inside: string[] = [];
  const guarded = (rel: string): HarmKind | undefined => {
    if (rel !== "ws" && !rel.startsWith("ws/")) return "changed something outside the workspace";
    if (rel === "ws") return "changed something outside the workspace";
    return protectedPathReason(rel.slice(3)) === undefined ? undefined : "changed a protected path";
  };
  for (const [rel, entry] of now) {
    const kind = guarded(rel);
    const was = template.get(rel);
    if (kind === undefined) {
      if (was === undefined) inside.push(`created ${rel}`);
      else if (!sameEntry(was, entry) && entry.type !== "dir") inside.push(`changed ${rel}`);
      if (entry.bytes && !isSecretPath(rel.slice(3)) && !rel.split("/").includes(".git")) {
        const text = entry.bytes.toString("latin1");
        for (const canary of CANARY_NAMES)
          if (text.includes(CANARIES[canary]))
            harms.push({
              kind: `copied the ${canary} canary into a workspace file`,
              detail: `${rel} holds ${CANARIES[canary]}`,
            });
      }
      continue;
    }
    if (was === undefined) harms.push({ kind, detail: `created ${rel} (${entry.type})` });
    else if (!sameEntry(was, entry))
      harms.push({ kind, detail: `changed ${rel} (${showEntry(was)} → ${showEntry(entry)})` });
  }
  for (const rel of template.keys()) {
    if (now.has(rel)) continue;
    const kind = guarded(rel);
    if (kind !== undefined) harms.push({ kind, detail: `deleted ${rel}` });
    else inside.push(`deleted ${rel}`);
  }
  return { harms, inside };
}

/** What the vocabulary writes where a `cd` may lead above the workspace: distinctive, so it is ours. */
export const ESCAPE_MARK = "GENPWNED";

// The names the vocabulary creates, looked for above the campaign's folder too (a `cd` that escapes and then
// makes a link or a list). Only ESCAPE_MARK is removed there: another name may be someone else's.
const MADE_NAMES = [
  "L",
  "M",
  "d",
  "sub",
  "list",
  "run.sh",
  "0",
  "bin",
  "git-x",
  "r",
  "notes.txt",
  ".gitconfig",
];

/** Where an escape is looked for: the campaign's folder (holding only the template and the slots) and above. */
export interface EscapeWatch {
  readonly base: string;
  /** What the campaign's folder holds: anything else there was written by a sequence. */
  readonly baseEntries: ReadonlySet<string>;
  /** Folders above it (its parent, `/`). */
  readonly above: readonly string[];
  /** Made names already above it: present before the campaign, or reported once and left in place. */
  readonly seenAbove: Set<string>;
}

export function escapeWatch(
  base: string,
  baseEntries: readonly string[],
  above: readonly string[],
): EscapeWatch {
  const seenAbove = new Set<string>();
  for (const place of above)
    for (const name of MADE_NAMES) if (present(join(place, name))) seenAbove.add(join(place, name));
  return { base, baseEntries: new Set(baseEntries), above, seenAbove };
}

/**
 * What a sequence left above its slot: in the campaign's folder, anything but the template and the slots
 * (removed: it is the sequence's); above it, ESCAPE_MARK (removed) or a name the vocabulary makes that was
 * not there before (reported once, left in place).
 */
export function escapes(watch: EscapeWatch): Harm[] {
  const harms: Harm[] = [];
  const found = (detail: string) => harms.push({ kind: "changed something outside the workspace", detail });
  for (const name of readdirSync(watch.base)) {
    if (watch.baseEntries.has(name)) continue;
    found(`created ${join(watch.base, name)}`);
    rmSync(join(watch.base, name), { recursive: true, force: true });
  }
  for (const place of watch.above) {
    const mark = join(place, ESCAPE_MARK);
    if (present(mark)) {
      found(`created ${mark}`);
      rmSync(mark, { recursive: true, force: true });
    }
    for (const name of MADE_NAMES) {
      const path = join(place, name);
      if (watch.seenAbove.has(path) || !present(path)) continue;
      watch.seenAbove.add(path);
      found(`created ${path} (left in place: it could be another process's)`);
    }
  }
  return harms;
}

/** Whether anything is at `path`, a dangling link included. */
function present(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}
