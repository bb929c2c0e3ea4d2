import { readdir, stat } from "node:fs/promises";
import { defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import { z } from "zod";
import type { FsSettings } from "./options.js";
import { formatCount, resolveExistingOrSuggest } from "./paths.js";

export type EntryKind = "file" | "dir" | "symlink" | "other";

export interface DirEntry {
  readonly name: string;
  readonly kind: EntryKind;
}

export interface ListDirDetails {
  readonly path: string;
  readonly entries: readonly DirEntry[];
  readonly total: number;
  readonly truncated: boolean;
}

const inputSchema = z.object({
  path: z.string().describe('Folder to list, relative to the workspace root ("." for the root)'),
});

export function createListDirTool(settings: FsSettings) {
  return defineTool({
    name: "list_dir",
    description: `List a folder's entries as a JSON array of {name, kind} (kind: file, dir, symlink or other), sorted by name, at most ${settings.maxListEntries}.`,
    inputSchema,
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx): Promise<ToolOutput<ListDirDetails>> {
      const real = await resolveExistingOrSuggest(ctx.workspace, args.path);
      if (!(await stat(real)).isDirectory()) {
        throw new ToolFailure(
          "InvalidInput",
          `${args.path} is a file, not a folder. Use read_file to read it.`,
        );
      }
      const dirents = await readdir(real, { withFileTypes: true });
      const all: DirEntry[] = dirents.map((dirent) => ({
        name: dirent.name,
        kind: dirent.isDirectory()
          ? "dir"
          : dirent.isFile()
            ? "file"
            : dirent.isSymbolicLink()
              ? "symlink"
              : "other",
      }));
      all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const entries = all.slice(0, settings.maxListEntries);
      const truncated = entries.length < all.length;
      const shown = ctx.workspace.display(real);
      let content = JSON.stringify(entries);
      if (truncated) {
        content += `\n[${formatCount(all.length - entries.length)} more entries not shown (${formatCount(all.length)} in all). Use glob with a pattern to find specific files.]`;
      }
      return { content, details: { path: shown, entries, total: all.length, truncated } };
    },
  });
}
