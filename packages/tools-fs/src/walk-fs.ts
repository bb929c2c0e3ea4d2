import { close, type Dirent, fstat, open, readdir, readlink, realpath, type Stats } from "node:fs";
import { sep } from "node:path";
import { procFd, READ_FLAGS } from "./descriptor.js";

type Done<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

/** Whether a real path is one of the (real) roots or under one. */
export function underRoots(roots: readonly string[], real: string): boolean {
  return roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep));
}

/**
 * The file-system calls a fast-glob walk makes, each checked against the workspace after the fact: a
 * folder is opened first and listed through its descriptor only when the descriptor's real path is inside
 * a root, so a folder swapped for a link to elsewhere mid-walk lists as empty instead of leaking the names
 * outside. A single path (a pattern without wildcards) is looked at the same way, without following a link
 * in its last component. Callback style, like node:fs: this runs once per folder of a large tree.
 */
export function checkedWalkFs(roots: readonly string[]) {
  const inside = (real: string) => underRoots(roots, real);
  return {
    readdir(path: string, options: { withFileTypes: true }, done: Done<Dirent[]>): void {
      openChecked(path, inside, (error, fd) => {
        if (error || fd === undefined) return done(error, []);
        readdir(procFd ? `/proc/self/fd/${fd}` : path, options, (listError, entries) => {
          close(fd, () => done(listError, entries ?? []));
        });
      });
    },
    // A link in the last place is not followed and not a file either: it reads as missing.
    lstat: statChecked,
    stat: statChecked,
  };
  function statChecked(path: string, done: Done<Stats | undefined>): void {
    openChecked(path, inside, (error, fd) => {
      if (error || fd === undefined) return done(error ?? notFound(path), undefined);
      fstat(fd, (statError, stats) => close(fd, () => done(statError, stats)));
    });
  }
}

/** Open `path` (never following a link in its last place) and hand back the fd if it lies inside. */
function openChecked(
  path: string,
  inside: (real: string) => boolean,
  done: (error: NodeJS.ErrnoException | null, fd?: number) => void,
): void {
  open(path, READ_FLAGS, (error, fd) => {
    if (error) return done(error);
    const check = (checkError: NodeJS.ErrnoException | null, real: string) => {
      if (!checkError && inside(real)) return done(null, fd);
      close(fd, () => done(checkError ?? notFound(path)));
    };
    if (procFd) readlink(`/proc/self/fd/${fd}`, check);
    else realpath(path, check);
  });
}

/** What a path outside the workspace looks like to the walk: not there. */
function notFound(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: ${path} is outside the workspace`), { code: "ENOENT" });
}
