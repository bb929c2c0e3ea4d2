/** Limits on what a workspace's checkpoints keep (documented in the README). */
export const REWIND_LIMITS = {
  /** A larger file is recorded by size and times, never read: a rewind that needs it back refuses and names it. */
  maxFileBytes: 8 * 1024 * 1024,
  /** All the workspace's kept contents together; past it, new contents are recorded by hash only. */
  maxStoreBytes: 512 * 1024 * 1024,
} as const;
