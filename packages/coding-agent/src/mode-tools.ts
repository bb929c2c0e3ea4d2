// The session mode (session-mode.ts) applied to the tools on every call. The tool list, names, descriptions
// and schemas never change with the mode: the request's prefix (and the provider's prompt cache) survives a
// switch, and the model is told the mode in the conversation (modeHook). What changes is what a call does:
// - plan, read-only: a tool that may write is refused with a Denied result that says what to do instead;
//   commands go through a read-only shell (only what the strict policy proves read-only runs);
// - ask: every such tool asks first, and commands go through a shell in ask mode;
// - workspace, full-access: the tools as they were built.
import type {
  AnyHook,
  AnyTool,
  ApprovalCheckEnv,
  ApprovalScope,
  ToolCallEnv,
  ToolSource,
} from "@bridle/core";
import { defineHook, ToolFailure } from "@bridle/core";
import type { PermissionMode } from "@bridle/tools-shell";
import { originalOf } from "./permission-tools.js";
import type { ModeSwitch, SessionMode } from "./session-mode.js";

// Own properties as an object literal would make them: a runner that wraps a tool (a durable run's) may
// assign over them in a copy.
const OWN = { enumerable: true, writable: true, configurable: true } as const;

/** Tools that follow the mode themselves (the shell tool under its profile name): the gate leaves them be. */
const followsMode = new WeakSet<AnyTool>();

export function markFollowsMode(tool: AnyTool): void {
  followsMode.add(tool);
}

/**
 * The bash tool under the mode: each call runs through the bash tool of the mode in force (plan runs as
 * read-only), made the first time the mode is used. Name, description and schema stay the base tool's.
 */
export function modeBash(
  base: AnyTool,
  modes: ModeSwitch,
  make: (mode: PermissionMode) => Promise<AnyTool>,
): AnyTool {
  const made = new Map<PermissionMode, Promise<AnyTool>>();
  const current = (): Promise<AnyTool> => {
    const mode = modes.commandMode;
    if (mode === modes.base) return Promise.resolve(base);
    let tool = made.get(mode);
    if (!tool) {
      tool = make(mode);
      made.set(mode, tool);
    }
    return tool;
  };
  const tool: AnyTool = Object.create(base, {
    needsApproval: {
      value: async (args: unknown, env: ApprovalCheckEnv) => {
        const chosen = await current();
        return (await chosen.needsApproval?.(args, env)) === true;
      },
      ...OWN,
    },
    approvalScope: {
      value: async (args: unknown, env: ApprovalCheckEnv) => {
        const chosen = await current();
        return chosen.approvalScope ? chosen.approvalScope(args, env) : {};
      },
      ...OWN,
    },
    execute: {
      value: async (args: unknown, env: ToolCallEnv) => (await current()).execute(args, env),
      ...OWN,
    },
  });
  return tool;
}

function refusal(name: string, mode: SessionMode, exitName: string): string {
  return mode === "plan"
    ? `${name} is not available in plan mode: only reading and read-only commands are. Finish the plan and present it with ${exitName}; once the user accepts it you can make changes.`
    : `${name} is not available in read-only mode: the user switched the session to read-only. Read instead, or say what you would change.`;
}

/** Why ask mode asks: the rule the gate applies (every tool not known to only read asks first). */
const ASK_MODE_REASON = "ask mode asks before every call that may write";

/**
 * The scope of a call that ask mode sends to the approver. The mode asks per tool, so "always" is per tool
 * (named as the model called it), whatever narrower scope the tool offers for its own asks; the tool's own
 * `why`, when it gives one, says what the call does ("writes src/a.ts"), and the mode's rule follows it.
 */
async function askModeScope(original: AnyTool, args: unknown, env: ApprovalCheckEnv): Promise<ApprovalScope> {
  let what: string | undefined;
  try {
    what = (await original.approvalScope?.(args, env))?.why;
  } catch {
    // A scope that cannot be worked out says nothing of the call; the mode's reason still holds.
  }
  // Loaded already: the file tools are composed before any call is asked about.
  const { wholeToolScope } = await import("@bridle/tools-fs");
  return wholeToolScope(original.name, what ? `${what} (${ASK_MODE_REASON})` : ASK_MODE_REASON);
}

/** Tools gateTool made: gating one again returns it as it is. */
const gated = new WeakSet<AnyTool>();

/** One tool under the mode (unchanged where the mode cannot change what it does). */
export function gateTool(tool: AnyTool, modes: ModeSwitch, exitName: string): AnyTool {
  if (tool.annotations?.read_only === true || followsMode.has(tool) || gated.has(tool)) return tool;
  // A tool the start mode made ask (ask mode) is gated from the tool it wraps, so leaving ask stops asking.
  const original = originalOf(tool);
  const asksItself = original.annotations?.requires_approval === true;
  const blocked = () => modes.mode === "plan" || modes.mode === "read-only";
  const out = Object.create(original, {
    annotations: {
      value: { ...original.annotations, requires_approval: false },
      ...OWN,
    },
    needsApproval: {
      value: async (args: unknown, env: ApprovalCheckEnv) => {
        if (blocked()) return false; // refused when it executes: nothing to approve
        if (modes.mode === "ask" || asksItself) return true;
        return original.needsApproval ? (await original.needsApproval(args, env)) === true : false;
      },
      ...OWN,
    },
    // Asked by ask mode: the mode's scope. Otherwise the tool asked on its own: its scope as it gives it,
    // or, without one, "always" for the whole tool (what a tool without a scope gets).
    approvalScope: {
      value: async (args: unknown, env: ApprovalCheckEnv): Promise<ApprovalScope> => {
        if (modes.mode === "ask") return askModeScope(original, args, env);
        if (original.approvalScope) return original.approvalScope(args, env);
        return (await import("@bridle/tools-fs")).wholeToolScope(original.name);
      },
      ...OWN,
    },
    execute: {
      value: async (args: unknown, env: ToolCallEnv) => {
        if (blocked()) throw new ToolFailure("Denied", refusal(original.name, modes.mode, exitName));
        return original.execute(args, env);
      },
      ...OWN,
    },
  }) as AnyTool;
  gated.add(out);
  return out;
}

/** A tool source (MCP servers joining later) under the mode: each tool gated once, the same object after. */
export function gateSource(source: ToolSource, modes: ModeSwitch, exitName: string): ToolSource {
  const seen = new WeakMap<AnyTool, AnyTool>();
  const gated = (tool: AnyTool): AnyTool => {
    let out = seen.get(tool);
    if (!out) {
      out = gateTool(tool, modes, exitName);
      seen.set(tool, out);
    }
    return out;
  };
  return {
    tools: () => source.tools().map(gated),
    ...(source.takeFacts ? { takeFacts: () => source.takeFacts?.() ?? [] } : {}),
  };
}

/** The note the model gets with each prompt while planning. */
export function planNote(exitName: string, askName: string): string {
  return `Plan mode: the user wants a plan before any change. Read and search only; writing tools and commands that may write are refused. Ask with ${askName} if a choice is the user's. When the plan is ready, call ${exitName} with it.`;
}

/**
 * Records the mode on each run (a `session.mode` fact, so the session says what mode each turn ran in) and
 * tells the model: the plan note with every prompt while planning, one line when the mode changed since.
 */
export function modeHook(modes: ModeSwitch, exitName: string, askName: string): AnyHook {
  let told: SessionMode = modes.base;
  return defineHook({
    event: "user_prompt_submit",
    name: "session mode",
    handler: (input) => {
      const mode = modes.mode;
      input.record?.("session.mode", { mode, working: modes.working });
      if (mode === "plan") input.addContext(planNote(exitName, askName));
      else if (mode !== told) input.addContext(`The session is now in ${mode} mode.`);
      told = mode;
    },
  });
}
