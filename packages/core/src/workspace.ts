import { lstatSync, realpathSync } from "node:fs";
import { mkdir, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { ToolFailure } from "./errors.js";
import { isSecretPath } from "./secrets.js";

export interface WorkspaceOptions {
  /** Folders the tools may touch. The first one is where relative paths start. */
  readonly roots: readonly string[];
  /** Let tools read and write secret-like paths (.env, private keys, credential files). Off by default. */
  readonly allowSecrets?: boolean;
}

/**
 * The path policy every tool package shares. Paths are resolved against the first root, symlinks are
 * followed, and containment is checked on the real path with a separator-aware prefix test, so neither
 * `../`, an absolute path, a symlink out, nor a sibling folder named like a root (`/work-evil`) escapes.
 *
 * The metadata calls behind a resolution (realpath, lstat) are made synchronously: each is answered
 * from the kernel's caches in microseconds, while sending it to libuv's thread pool and back costs a
 * tenth of a millisecond or more of wake-ups on every tool call.
 */
export class Workspace {
  readonly roots: readonly string[];
  readonly allowSecrets: boolean;
  #realRoots: Promise<string[]> | undefined;
  #realRoot: string | undefined;

  constructor(options: WorkspaceOptions | string) {
    const opts = typeof options === "string" ? { roots: [options] } : options;
    if (opts.roots.length === 0) throw new TypeError("a workspace needs at least one root");
    this.roots = opts.roots.map((root) => resolve(root));
    this.allowSecrets = opts.allowSecrets ?? false;
  }

  /** The folder relative paths start from. */
  get root(): string {
    return this.roots[0] as string;
  }

  /** The path as the model should see it: relative to the first root when inside it. */
  display(absolute: string): string {
    // Tools hand over real paths; when the root itself is reached through a symlink (/tmp on macOS, a
    // symlinked checkout), its real path is what those paths start with.
    this.#realRoot ??= realRootSync(this.root);
    for (const root of [this.root, this.#realRoot]) {
      const rel = relative(root, absolute);
      if (rel === "") return ".";
      if (!rel.startsWith("..") && !isAbsolute(rel)) return rel;
    }
    return absolute;
  }

  /** Resolve a path that must already exist inside the workspace. */
  async resolveExisting(path: string): Promise<string> {
    const absolute = this.#absolute(path);
    let real: string;
    try {
      real = realpathSync.native(absolute);
    } catch (error) {
      if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) {
        await this.#assertInside(absolute, path);
        throw new ToolFailure("NotFound", `${path}: no such file or directory`);
      }
      throw error;
    }
    await this.#assertInside(real, path);
    this.#assertNotSecret(real, path);
    return real;
  }

  /**
   * Resolve a path to write. The nearest existing ancestor must be inside the workspace; with
   * `createParents` the missing folders are then created. An existing target that is a symlink is
   * followed and must itself point inside.
   */
  async resolveForWrite(path: string, options: { createParents?: boolean } = {}): Promise<string> {
    const absolute = this.#absolute(path);
    this.#assertNotSecret(absolute, path);
    const existing = lstatSync(absolute, { throwIfNoEntry: false });
    if (existing) {
      const real = realpathSync.native(absolute);
      await this.#assertInside(real, path);
      this.#assertNotSecret(real, path);
      if (existing.isDirectory()) throw new ToolFailure("InvalidInput", `${path} is a directory`);
      return real;
    }
    const parent = dirname(absolute);
    const ancestor = nearestExisting(parent);
    const realAncestor = realpathSync.native(ancestor);
    await this.#assertInside(realAncestor, path);
    const realParent = resolve(realAncestor, relative(ancestor, parent));
    if (realParent !== realAncestor) {
      if (!options.createParents) throw new ToolFailure("NotFound", `${path}: parent folder does not exist`);
      await mkdir(realParent, { recursive: true });
    }
    return resolve(realParent, relative(parent, absolute));
  }

  /** Whether a real path lies inside one of the roots. */
  async contains(realPath: string): Promise<boolean> {
    const roots = await this.#roots();
    return roots.some(
      (root) => realPath === root || realPath.startsWith(root.endsWith(sep) ? root : root + sep),
    );
  }

  isSecret(path: string): boolean {
    return !this.allowSecrets && isSecretPath(path);
  }

  #absolute(path: string): string {
    if (typeof path !== "string" || path.length === 0) throw new ToolFailure("InvalidInput", "path is empty");
    if (path.includes("\0")) throw new ToolFailure("InvalidInput", "path contains a NUL byte");
    return resolve(this.root, path);
  }

  async #assertInside(real: string, shown: string): Promise<void> {
    if (!(await this.contains(real))) {
      throw new ToolFailure("Denied", `${shown} is outside the workspace (${this.roots.join(", ")})`);
    }
  }

  #assertNotSecret(real: string, shown: string): void {
    if (this.isSecret(real)) {
      throw new ToolFailure(
        "Denied",
        `${shown} looks like a secret (credentials, keys, .env); access is denied`,
      );
    }
  }

  #roots(): Promise<string[]> {
    this.#realRoots ??= Promise.all(this.roots.map((root) => realpath(root).catch(() => root)));
    return this.#realRoots;
  }
}

function realRootSync(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

function nearestExisting(path: string): string {
  let current = path;
  while (!lstatSync(current, { throwIfNoEntry: false })) {
    const up = dirname(current);
    if (up === current) return current;
    current = up;
  }
  return current;
}

export function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
