import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { mkdir, realpath } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { ToolFailure } from "./errors.js";
import { isErrno } from "./node/errno.js";
import { isWithin, isWithinAny } from "./node/is-within.js";
import { protectedPathReason, userConfigFolder } from "./protected-paths.js";
import { isSecretPath } from "./secrets.js";

export interface WorkspaceOptions {
  /** Folders the tools may touch. The first one is where relative paths start. */
  readonly roots: readonly string[];
  /** Let tools read and write secret-like paths (.env, private keys, credential files). Off by default. */
  readonly allowSecrets?: boolean;
  /**
   * More files or folders no tool may write, beyond the rule every workspace applies (`.git`, the agent's
   * settings, the user's Bridle config folder): the MCP config or skills folder a trusted config names, say.
   */
  readonly protectedPaths?: readonly string[];
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
  /** Absolute paths no tool may write, beside the workspace-relative rule (see `protectedPathReason`). */
  readonly protectedPaths: readonly string[];
  #realRoots: Promise<string[]> | undefined;
  #realRoot: string | undefined;
  #protectedPlaces: { roots: string[]; paths: string[] } | undefined;

  constructor(options: WorkspaceOptions | string) {
    const opts = typeof options === "string" ? { roots: [options] } : options;
    if (opts.roots.length === 0) throw new TypeError("a workspace needs at least one root");
    this.roots = opts.roots.map((root) => resolve(root));
    this.allowSecrets = opts.allowSecrets ?? false;
    this.protectedPaths = [userConfigFolder(), ...(opts.protectedPaths ?? [])].map((path) => resolve(path));
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
      if (isWithin(root, absolute)) return relative(root, absolute) || ".";
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
   * Resolve a path to write (create, change, delete or rename onto). The nearest existing ancestor must be
   * inside the workspace; with `createParents` the missing folders are then created. An existing target
   * that is a symlink is followed and must itself point inside. Every writer passes here, so this is where
   * protected paths (`protectedPathReason`, `protectedPaths`) are refused, as written and as resolved.
   */
  async resolveForWrite(path: string, options: { createParents?: boolean } = {}): Promise<string> {
    return this.#resolveWrite(this.#absolute(path), path, options, 0);
  }

  async #resolveWrite(
    absolute: string,
    path: string,
    options: { createParents?: boolean },
    hops: number,
  ): Promise<string> {
    this.#assertNotSecret(absolute, path);
    this.#assertNotProtected(absolute, path);
    const existing = lstatOrNone(absolute, path);
    if (existing) {
      let real: string;
      try {
        real = realpathSync.native(absolute);
      } catch (error) {
        // A dangling link: writing it creates its target, which is judged as the new file it will be.
        if (!existing.isSymbolicLink() || !(isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")))
          throw error;
        if (hops >= 40) throw new ToolFailure("InvalidInput", `${path}: too many levels of symbolic links`);
        const target = resolve(dirname(absolute), readlinkSync(absolute));
        return this.#resolveWrite(target, path, options, hops + 1);
      }
      await this.#assertInside(real, path);
      this.#assertNotSecret(real, path);
      this.#assertNotProtected(real, path);
      if (existing.isDirectory()) throw new ToolFailure("InvalidInput", `${path} is a directory`);
      return real;
    }
    const parent = dirname(absolute);
    const ancestor = nearestExisting(parent);
    const realAncestor = realpathSync.native(ancestor);
    await this.#assertInside(realAncestor, path);
    const realParent = resolve(realAncestor, relative(ancestor, parent));
    const target = resolve(realParent, relative(parent, absolute));
    this.#assertNotProtected(target, path);
    if (realParent !== realAncestor) {
      if (!options.createParents) throw new ToolFailure("NotFound", `${path}: parent folder does not exist`);
      await mkdir(realParent, { recursive: true });
    }
    return target;
  }

  /**
   * Why an absolute path (as written or resolved) must not be written, or undefined. Checked against every
   * root as given and as resolved, and against the protected absolute paths.
   */
  protectedReason(absolute: string): string | undefined {
    this.#protectedPlaces ??= {
      roots: unique([...this.roots, ...this.roots.map(realRootSync)]),
      paths: unique([...this.protectedPaths, ...this.protectedPaths.map(realRootSync)]),
    };
    const { roots, paths } = this.#protectedPlaces;
    for (const place of paths) {
      if (isWithin(place, absolute)) return "it holds the user's Bridle settings, trust or secrets";
    }
    for (const root of roots) {
      if (!isWithin(root, absolute)) continue;
      const reason = protectedPathReason(relative(root, absolute));
      if (reason) return reason;
    }
    return undefined;
  }

  /** Whether a real path lies inside one of the roots. */
  async contains(realPath: string): Promise<boolean> {
    return isWithinAny(await this.#roots(), realPath);
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

  #assertNotProtected(absolute: string, shown: string): void {
    const reason = this.protectedReason(absolute);
    if (reason) throw new ToolFailure("Denied", `${shown} is protected: ${reason}`);
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

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

/** The entry at `path`, undefined when there is none; a file where a folder should be is the caller's mistake. */
function lstatOrNone(path: string, shown: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (isErrno(error, "ENOTDIR")) {
      throw new ToolFailure("NotFound", `${shown}: a part of the path is a file, not a folder`);
    }
    throw error;
  }
}

function nearestExisting(path: string): string {
  let current = path;
  while (!lstatOrNone(current, current)) {
    const up = dirname(current);
    if (up === current) return current;
    current = up;
  }
  return current;
}
