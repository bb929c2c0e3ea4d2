import type { Workspace } from "@bridle/core";
import { type CurrentFile, type FileTracker, updateFile } from "@bridle/tools-fs";

export interface LockRequest {
  /** The file's real path (already through the workspace policy). */
  readonly real: string;
  /** Load its bytes (an update) or only what identifies it (a delete, whatever its size). */
  readonly requireBytes: boolean;
}

export interface LockedFile {
  readonly real: string;
  readonly shown: string;
  readonly current: CurrentFile | undefined;
}

export interface LockSettings {
  readonly maxBytes: number;
  readonly tracker: FileTracker;
  readonly runId: string;
  readonly signal?: AbortSignal;
}

/**
 * Runs `task` holding the locks tools-fs takes for a write (in this process and, through lock files,
 * across Bridle processes) on every existing file, with each file's current bytes read through its
 * descriptor-checked folder. tools-fs changes one file per call, so the calls are nested, in one global
 * order (two patches over the same files cannot wait on each other), and each writes nothing: the patch
 * commits every file itself, inside the innermost call, all or nothing.
 *
 * tools-fs remembers the bytes it showed a change that wrote nothing as the run's view of the file, which
 * is stale after this commit: the caller remembers the new files after this returns.
 */
export async function withLockedFiles<T>(
  workspace: Workspace,
  requests: readonly LockRequest[],
  settings: LockSettings,
  task: (files: ReadonlyMap<string, LockedFile>) => Promise<T>,
): Promise<T> {
  const ordered = [...requests].sort((a, b) => (a.real < b.real ? -1 : a.real > b.real ? 1 : 0));
  const held = new Map<string, LockedFile>();
  const step = async (index: number): Promise<T> => {
    const request = ordered[index];
    if (request === undefined) return task(held);
    return updateFile(
      workspace,
      request.real,
      {
        create: false,
        maxBytes: settings.maxBytes,
        requireBytes: request.requireBytes,
        tracker: settings.tracker,
        runId: settings.runId,
        ...(settings.signal ? { signal: settings.signal } : {}),
      },
      async (target) => {
        held.set(request.real, { real: target.real, shown: target.shown, current: target.current });
        return { bytes: undefined, value: await step(index + 1) };
      },
    );
  };
  return step(0);
}
