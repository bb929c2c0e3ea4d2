// One queue per real path, shared by every toolkit in the process: two mutating calls on one file
// (parallel runs, or a hashline edit beside an exact edit) never interleave their read-check-write.
const tails = new Map<string, Promise<void>>();

/** Run `task` once every earlier task on the same path has settled. */
export async function withFileLock<T>(path: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(path) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(path, tail);
  await previous;
  try {
    return await task();
  } finally {
    release();
    if (tails.get(path) === tail) tails.delete(path);
  }
}
