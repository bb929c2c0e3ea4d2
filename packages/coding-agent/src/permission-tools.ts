// What the permission mode (--permission-mode, the user's `permissionMode`) does to the tools that are not
// shell commands, and the user's own shell rules. The shell tools, and the tools that run commands through
// their environment (run_check, skill_run), apply the mode per call themselves (tools-shell's permission
// table): they are the tools with a per-call `needsApproval`, and are left as they are here.
import type { AnyTool, ToolSource } from "@bridle/core";
import type { PolicyRule } from "@bridle/shell-policy";
import type { PermissionMode } from "@bridle/tools-shell";
import type { PermissionRules } from "./settings.js";

function judgesItself(tool: AnyTool): boolean {
  return tool.annotations?.read_only === true || tool.needsApproval !== undefined;
}

/**
 * - read-only: a tool that may write is not offered at all (the model is not shown a tool it may not use);
 * - ask: every such tool asks before each call ("always" stays per tool);
 * - workspace, full-access: unchanged (full access answers every ask, run.ts).
 */
export function toolsForMode(tools: readonly AnyTool[], mode: PermissionMode): AnyTool[] {
  if (mode === "read-only") return tools.filter(judgesItself);
  if (mode !== "ask") return [...tools];
  return tools.map((tool) =>
    judgesItself(tool) || tool.annotations?.requires_approval === true ? tool : askFirst(tool),
  );
}

/**
 * A tool source (MCP servers joining in the background) under the same mode: each tool it offers is
 * filtered or wrapped once, so the harness sees the same object on every request.
 */
export function sourceForMode(source: ToolSource, mode: PermissionMode): ToolSource {
  if (mode === "workspace" || mode === "full-access") return source;
  const seen = new WeakMap<AnyTool, AnyTool | null>();
  const shown = (tool: AnyTool): AnyTool | null => {
    let out = seen.get(tool);
    if (out === undefined) {
      out = toolsForMode([tool], mode)[0] ?? null;
      seen.set(tool, out);
    }
    return out;
  };
  return {
    tools: () => source.tools().flatMap((tool) => shown(tool) ?? []),
    ...(source.takeFacts ? { takeFacts: () => source.takeFacts?.() ?? [] } : {}),
  };
}

/** Tools askFirst made, and the tool each wraps (the session's mode switch asks from the original). */
const asking = new WeakMap<AnyTool, AnyTool>();

/** The tool as it was before the start mode made it ask. */
export function originalOf(tool: AnyTool): AnyTool {
  return asking.get(tool) ?? tool;
}

/** The same tool, asking first: its prototype kept, so a tool that is a class instance still works. */
function askFirst(tool: AnyTool): AnyTool {
  const wrapped = Object.create(tool, {
    annotations: { value: { ...tool.annotations, requires_approval: true }, enumerable: true },
  }) as AnyTool;
  asking.set(wrapped, tool);
  return wrapped;
}

/**
 * The user's `permissions` as the command policy's rules: each entry is a command's argv prefix, words
 * split on spaces, as `bridle policy check` and the approval prompt show them ("npm test", "git push").
 */
export function shellRules(permissions: PermissionRules | undefined): PolicyRule[] {
  if (!permissions) return [];
  const rules: PolicyRule[] = [];
  for (const decision of ["deny", "ask", "allow"] as const) {
    for (const entry of permissions[decision]) rules.push({ decision, argv: entry.split(/\s+/) });
  }
  return rules;
}
