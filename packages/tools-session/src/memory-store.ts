import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, parse, resolve } from "node:path";
import { BridleError, isErrno, matchText, searchTerms, ToolFailure, Workspace } from "@bridle/core";
import { writeFileAtomic } from "@bridle/core/node";

/** Memory keys: letters, digits, `-` and `_`, 1 to 64 characters (they name files). */
export const MEMORY_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export interface MemoryEntry {
  readonly key: string;
  readonly content: string;
  readonly updatedAt: number;
}

export interface MemoryHit {
  readonly key: string;
  readonly score: number;
  /** 1-based line of the first match. */
  readonly line: number;
  readonly snippet: string;
}

/**
 * Where an agent keeps notes across sessions: markdown text under short keys. Small on purpose, so it can
 * sit over a folder, a database table or a remote service; `FolderMemory` is the one this package ships.
 */
export interface MemoryStore {
  read(key: string): Promise<MemoryEntry | undefined>;
  /** Creates or replaces the note; `created` tells which. */
  write(key: string, content: string): Promise<{ readonly created: boolean }>;
  list(): Promise<readonly { readonly key: string; readonly updatedAt: number; readonly bytes: number }[]>;
  /** Best first; every query term must start a word of the note (or of its key). */
  search(query: string, limit: number): Promise<readonly MemoryHit[]>;
}

/**
 * Memory as a folder of `<key>.md` files: readable, editable and diffable by people, safe to keep in git.
 * A write goes to a temporary file first and is renamed into place, so a note is never half-written.
 *
 * The folder may lie anywhere, so a write is judged by core's protected-path rule over its whole absolute
 * path: a memory folder inside a `.git` folder, the agent's own `.bridle/` settings or the user's Bridle
 * config folder (as written or through a link) is refused, and nothing is created there.
 */
export class FolderMemory implements MemoryStore {
  readonly dir: string;
  // A workspace over the file system's root: its write resolution is core's one rule, applied to every
  // folder on the way to the note, wherever the application put the memory folder.
  readonly #guard: Workspace;

  constructor(dir: string) {
    this.dir = dir;
    this.#guard = new Workspace({ roots: [parse(resolve(dir)).root], allowSecrets: true });
  }

  async read(key: string): Promise<MemoryEntry | undefined> {
    const path = this.#path(key);
    try {
      const [content, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
      return { key, content, updatedAt: Math.floor(info.mtimeMs) };
    } catch (error) {
      if (isErrno(error, "ENOENT")) return undefined;
      throw error;
    }
  }

  async write(key: string, content: string): Promise<{ readonly created: boolean }> {
    const path = resolve(this.#path(key));
    // Judged before anything is made: the missing folders are created only for a path the rule allows.
    await this.#guard.resolveForWrite(path, { createParents: true }).catch((error: unknown) => {
      if (!(error instanceof ToolFailure) || error.kind !== "Denied") throw error;
      throw new ToolFailure(
        "Denied",
        `write_memory: nothing was saved. ${error.message}. The application chose this memory folder; tell the user instead of retrying.`,
      );
    });
    // The note replaces whatever entry has its name (a link there is replaced, not followed).
    const folder = await realpath(dirname(path));
    const target = join(folder, basename(path));
    const existed = await stat(target).then(
      () => true,
      () => false,
    );
    await writeFileAtomic(target, content);
    return { created: !existed };
  }

  async list(): Promise<
    readonly { readonly key: string; readonly updatedAt: number; readonly bytes: number }[]
  > {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (isErrno(error, "ENOENT")) return [];
      throw error;
    }
    const out: { key: string; updatedAt: number; bytes: number }[] = [];
    for (const name of names) {
      const key = name.slice(0, -".md".length);
      if (!name.endsWith(".md") || !MEMORY_KEY.test(key)) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info) out.push({ key, updatedAt: Math.floor(info.mtimeMs), bytes: info.size });
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt || a.key.localeCompare(b.key));
  }

  async search(query: string, limit: number): Promise<readonly MemoryHit[]> {
    const terms = searchTerms(query);
    if (terms.length === 0) return [];
    const hits: MemoryHit[] = [];
    for (const { key } of await this.list()) {
      const entry = await this.read(key);
      if (!entry) continue;
      // The key is part of what a note is about: "deploy-notes" should be found by "deploy".
      const text = `${key.replace(/[-_]/g, " ")}\n${entry.content}`;
      const match = matchText(text, terms);
      if (!match) continue;
      hits.push({
        key,
        score: match.score,
        line: firstMatchLine(entry.content, terms),
        snippet: match.snippet,
      });
    }
    return hits.sort((a, b) => b.score - a.score || a.key.localeCompare(b.key)).slice(0, limit);
  }

  #path(key: string): string {
    if (!MEMORY_KEY.test(key)) {
      throw new BridleError("invalid_argument", `invalid memory key ${JSON.stringify(key.slice(0, 80))}`);
    }
    return join(this.dir, `${key}.md`);
  }
}

function firstMatchLine(content: string, terms: readonly string[]): number {
  const lines = content.split("\n");
  for (const [i, line] of lines.entries()) if (matchText(line, terms.slice(0, 1))) return i + 1;
  return 1;
}
