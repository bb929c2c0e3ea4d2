import { cp, mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** Every file under `dir` (relative path → bytes), so two trees compare byte for byte. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isSymbolicLink()) out[relative(dir, path)] = `-> ${await readlink(path)}`;
      else if (entry.isDirectory()) {
        out[`${relative(dir, path)}/`] = "";
        await walk(path);
      } else out[relative(dir, path)] = (await readFile(path)).toString("base64");
    }
  };
  await walk(dir);
  return out;
}

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "apply-patch-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function copyInto(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true }).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
  });
}

/** The patch lines wrapped in the envelope, the way Codex's tests build theirs. */
export function wrapPatch(body: string): string {
  return `*** Begin Patch\n${body}\n*** End Patch\n`;
}
