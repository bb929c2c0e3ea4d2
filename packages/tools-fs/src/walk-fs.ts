import {
  close,
  closeSync,
  type Dirent,
  fstat,
  open,
  openSync,
  readdir,
  readlinkSync,
  realpath,
  type Stats,
} from "node:fs";
import type { Workspace } from "@bridle/core";
import { procFd, READ_FLAGS } from "./descriptor.js";

type Done<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

/**
 * The file-system calls a fast-glob walk makes, each checked against the workspace after the fact: a
 * folder is opened first and listed through its descriptor only when the descriptor's real path is inside
 * the workspace, so a folder swapped for a link to elsewhere mid-walk lists as empty instead of leaking
 * the names outside. A single path (a pattern without wildcards) is looked at the same way, without
 * following a link in its last component. Callback style, like node:fs: this runs once per folder.
 */
export function checkedWalkFs(workspace: Workspace) {
  return {
    readdir(path: string, options: { withFileTypes: true }, done: Done<Dirent[]>): void {
      if (!procFd) {
        openChecked(workspace, path, (error, fd) => {
          if (error || fd === undefined) return done(error, []);
          readdir(path, options, (listError, entries) => close(fd, () => done(listError, entries ?? [])));
        });
        return;
      }
      // The open and the descriptor's path are synchronous on purpose: both are quick, and a round trip
      // through the thread pool for each made the walk of a large tree two to three times slower. Only the
      // listing itself (through the descriptor) goes to the pool, as a plain walk's would.
      let fd: number;
      let real: string;
      try {
        fd = openSync(path, READ_FLAGS);
      } catch (error) {
        process.nextTick(done, error as NodeJS.ErrnoException, []);
        return;
      }
      try {
        real = readlinkSync(`/proc/self/fd/${fd}`);
      } catch (error) {
        closeSync(fd);
        process.nextTick(done, error as NodeJS.ErrnoException, []);
        return;
      }
      workspace.contains(real).then(
        (inside) => {
          if (!inside) {
            closeSync(fd);
            done(null, []);
            return;
          }
          readdir(`/proc/self/fd/${fd}`, options, (error, entries) => {
            closeSync(fd);
            done(error, entries ?? []);
          });
        },
        (error: NodeJS.ErrnoException) => {
          closeSync(fd);
          done(error, []);
        },
      );
    },
    // A link in the last place is not followed and not a file either: it reads as missing.
    lstat: statChecked,
    stat: statChecked,
  };

  function statChecked(path: string, done: Done<Stats | undefined>): void {
    openChecked(workspace, path, (error, fd) => {
      if (error || fd === undefined) return done(error ?? notFound(path), undefined);
      fstat(fd, (statError, stats) => close(fd, () => done(statError, stats)));
    });
  }
}

/** Open `path` (never following a link in its last place) and hand back the fd if it lies inside. */
function openChecked(
  workspace: Workspace,
  path: string,
  done: (error: NodeJS.ErrnoException | null, fd?: number) => void,
): void {
  open(path, READ_FLAGS, (error, fd) => {
    if (error) return done(error);
    const refuse = (reason: NodeJS.ErrnoException | null) => close(fd, () => done(reason ?? notFound(path)));
    const check = (checkError: NodeJS.ErrnoException | null, real: string) => {
      if (checkError) return refuse(checkError);
      workspace.contains(real).then(
        (inside) => (inside ? done(null, fd) : refuse(null)),
        () => refuse(null),
      );
    };
    if (!procFd) {
      realpath(path, check);
      return;
    }
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch (linkError) {
      refuse(linkError as NodeJS.ErrnoException);
      return;
    }
    check(null, real);
  });
}

/** What a path outside the workspace looks like to the walk: not there. */
function notFound(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: ${path} is outside the workspace`), { code: "ENOENT" });
}
