import { z } from "zod";

/**
 * Which of a server's tools are offered, from whichever config shape said so: Gemini CLI's
 * `includeTools`/`excludeTools`, Codex's `enabled_tools`/`disabled_tools`, opencode's `tools` globs.
 */
export const toolFilterSchema = z.object({
  /** Only these (by the server's own tool name); absent: every tool. */
  include: z.array(z.string()).optional(),
  /** Never these, even when `include` names them. */
  exclude: z.array(z.string()).optional(),
  /**
   * opencode's `tools`: globs (`*` for any run of characters) over `<server>_<tool>` as opencode names
   * them (characters outside `A-Za-z0-9_-` as `_`), each enabling or disabling what it matches; the last
   * glob that matches decides.
   */
  globs: z.array(z.tuple([z.string(), z.boolean()])).optional(),
});

export type ToolFilter = z.output<typeof toolFilterSchema>;

/**
 * Whether the filter lets the server's tool through. An `include` entry also matches with arguments
 * after the name (`run_shell_command(ls)`), as Gemini CLI writes them.
 */
export function allowsTool(filter: ToolFilter | undefined, server: string, tool: string): boolean {
  if (!filter) return true;
  if (filter.exclude?.includes(tool)) return false;
  if (filter.include && !filter.include.some((entry) => entry === tool || entry.startsWith(`${tool}(`))) {
    return false;
  }
  let allowed = true;
  const qualified = `${opencodeName(server)}_${opencodeName(tool)}`;
  for (const [glob, enabled] of filter.globs ?? []) {
    if (globMatches(glob, qualified)) allowed = enabled;
  }
  return allowed;
}

/** The names an include or exclude list gives that the server does not offer: most likely a typo. */
export function namesNotOffered(filter: ToolFilter | undefined, offered: ReadonlySet<string>): string[] {
  if (!filter) return [];
  const named = [
    ...(filter.include ?? []).map((entry) => entry.replace(/\(.*$/s, "")),
    ...(filter.exclude ?? []),
  ];
  return [...new Set(named)].filter((name) => !offered.has(name));
}

function opencodeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

function globMatches(glob: string, name: string): boolean {
  const pattern = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${pattern}$`, "s").test(name);
}
