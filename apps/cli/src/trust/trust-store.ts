import { lstat, mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@bridle/core/node";
import { z } from "zod";

/** One workspace config the user said yes to: that file, in that workspace, with exactly that content. */
export interface TrustRecord {
  /** Real path of the workspace root. */
  readonly workspace: string;
  /** Real path of the config file. */
  readonly file: string;
  /** sha256 of the config file's bytes and of everything its sensitive settings point at. */
  readonly fingerprint: string;
  readonly trustedAt: string;
}

const storeSchema = z.object({
  version: z.literal(1),
  trusted: z.array(
    z.object({
      workspace: z.string(),
      file: z.string(),
      fingerprint: z.string(),
      trustedAt: z.string(),
    }),
  ),
});

/** The user's answers to the trust prompt: `trusted-workspaces.json` in the user's config folder. */
export class TrustStore {
  readonly path: string;

  constructor(userConfigDir: string) {
    this.path = join(userConfigDir, "trusted-workspaces.json");
  }

  /**
   * The records, or none when the file is missing. A file others may write (group or world writable, owned
   * by someone else, or a symlink) or one that does not parse is not believed: trust fails closed, with a
   * reason.
   */
  async load(): Promise<{ readonly records: readonly TrustRecord[]; readonly problem?: string }> {
    let text: string;
    try {
      const info = await lstat(this.path);
      if (
        info.isSymbolicLink() ||
        (info.mode & 0o022) !== 0 ||
        (process.getuid && info.uid !== process.getuid())
      ) {
        return { records: [], problem: `${this.path} can be written by others; it is not believed` };
      }
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [] };
      return { records: [], problem: `cannot read ${this.path}: ${(error as Error).message}` };
    }
    try {
      return { records: storeSchema.parse(JSON.parse(text)).trusted };
    } catch {
      return { records: [], problem: `${this.path} is not a valid trust file; it is not believed` };
    }
  }

  /** Remembers a yes, replacing any earlier answer for the same file (its old content is trusted no longer). */
  async remember(workspace: string, file: string, fingerprint: string): Promise<void> {
    const { records } = await this.load();
    const kept = records.filter((r) => !(r.workspace === workspace && r.file === file));
    const next = {
      version: 1,
      trusted: [...kept, { workspace, file, fingerprint, trustedAt: new Date().toISOString() }],
    };
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    // Only the user may read or change what they trust.
    await writeFileAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  }
}
