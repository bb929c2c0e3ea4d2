import { mcpToolName } from "@bridle/core";

/**
 * Claude-style tool names in `allowed-tools`, and the Bridle tools they stand for. Keys are lowercase:
 * skills write `Read` and `read` alike. Names not listed here pass through unchanged, so Bridle names
 * (`read_file`) and an app's own tools work as written.
 */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  read: ["read_file", "list_dir"],
  write: ["write_file"],
  edit: ["edit_file"],
  multiedit: ["edit_file"],
  ls: ["list_dir"],
  glob: ["glob"],
  grep: ["grep"],
  // Starting a background command takes the same specifier as bash; reading, listing and stopping
  // the commands it started need none.
  bash: ["bash", "bash_start", "bash_output", "bash_stop", "bash_list"],
  webfetch: ["fetch"],
};

/** Tools whose `command` argument a `Bash(…)` specifier restricts. */
const COMMAND_TOOLS = new Set(["bash", "bash_start"]);

/** How one entry of allowed-tools grants a tool. */
export type ToolGrant =
  /** Every call. */
  | { readonly kind: "any" }
  /** Bash calls whose command matches one of these patterns. */
  | { readonly kind: "commands"; readonly patterns: readonly string[] };

export interface SkillGrants {
  /** Bridle tool name → how it is granted. */
  readonly tools: ReadonlyMap<string, ToolGrant>;
  /** Entries kept as they were written because no mapping applied (`WebFetch`, an app's own tool). */
  readonly passedThrough: readonly string[];
}

const ENTRY = /^([A-Za-z0-9_.:-]+)(?:\((.*)\))?$/s;

/**
 * Turn a skill's allowed-tools into grants. `Bash(git status:*)` grants bash for that command prefix,
 * `Bash(npm run *)` for that wildcard; a specifier on any other tool (`Read(src/**)`) is ignored and the
 * tool granted whole, since Bridle's workspace policy already bounds its paths. `mcp__server__tool`
 * becomes the name tools-mcp gives that tool (`mcpToolName`: `mcp_server_tool`, hashed when long).
 */
export function grantsOf(
  entries: readonly string[],
  aliases: Readonly<Record<string, readonly string[]>> = CLAUDE_TOOL_NAMES,
): SkillGrants {
  const tools = new Map<string, ToolGrant>();
  const passedThrough: string[] = [];
  const grant = (name: string, next: ToolGrant): void => {
    const current = tools.get(name);
    if (current?.kind === "any" || next.kind === "any") {
      tools.set(name, { kind: "any" });
      return;
    }
    tools.set(name, { kind: "commands", patterns: [...(current?.patterns ?? []), ...next.patterns] });
  };
  for (const entry of entries) {
    const match = ENTRY.exec(entry.trim());
    if (!match) {
      passedThrough.push(entry);
      tools.set(entry, { kind: "any" });
      continue;
    }
    const name = match[1] as string;
    const specifier = match[2]?.trim();
    const mapped = aliases[name.toLowerCase()];
    const targets = mapped ?? [mcpName(name) ?? name];
    if (!mapped && !name.startsWith("mcp__")) passedThrough.push(entry);
    for (const target of targets) {
      if (COMMAND_TOOLS.has(target) && specifier) grant(target, { kind: "commands", patterns: [specifier] });
      else grant(target, { kind: "any" });
    }
  }
  return { tools, passedThrough };
}

/** Claude Code's `mcp__server__tool` as the name tools-mcp gives that tool (core's one rule, hash included). */
function mcpName(name: string): string | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match ? mcpToolName(match[1] as string, match[2] as string) : undefined;
}

// Anything that lets one command line run a second command or touch files beside the one granted.
const SHELL_SYNTAX = /[;&|<>`$(){}\\\n\r!*?[\]#~]/;

/**
 * Whether a command matches a Bash specifier. A command holding shell syntax (`;`, `&&`, `|`, `$(`,
 * redirections, globs…) never matches: a prefix like `git status` must not let `git status; rm -rf ~` in.
 */
export function commandMatches(command: string, pattern: string): boolean {
  if (SHELL_SYNTAX.test(command)) return false;
  const text = command.trim().replace(/\s+/g, " ");
  if (text === "") return false;
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2).trim();
    return text === prefix || text.startsWith(`${prefix} `);
  }
  if (pattern.includes("*")) {
    const parts = pattern.trim().split("*").map(escapeRegExp);
    return new RegExp(`^${parts.join(".*")}$`).test(text);
  }
  return text === pattern.trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
