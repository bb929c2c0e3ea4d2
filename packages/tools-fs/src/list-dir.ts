import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { defineTool, ToolFailure, type ToolOutput } from "@bridle/core";
import { z } from "zod";
import { throughDescriptor } from "./descriptor.js";
import { openInside } from "./open-inside.js";
import type { FsSettings } from "./options.js";
import { formatCount } from "./paths.js";

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
  path: z.string().min(1).describe('"." for the root'),
});

export function createListDirTool(settings: FsSettings) {
  return defineTool({
    name: "list_dir",
    description: `List a folder's entries as sorted JSON [{name, kind}], at most ${settings.maxListEntries}.`,
    inputSchema,
    annotations: { read_only: true, idempotent: true },
    async execute(args, ctx): Promise<ToolOutput<ListDirDetails>> {
      // The folder listed is the one opened and checked: its entries are read through its descriptor, and
      // a symbolic link among them is reported as one, never followed.
      const { handle, real, stats } = await openInside(ctx.workspace, args.path);
      let dirents: Dirent[];
      try {
        if (!stats.isDirectory()) {
          throw new ToolFailure(
            "InvalidInput",
            `${args.path} is a file, not a folder. Use read_file to read it.`,
          );
        }
        dirents = await readdir(throughDescriptor(handle, real), { withFileTypes: true });
      } finally {
        await handle.close();
      }
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
