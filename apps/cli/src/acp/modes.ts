// The permission modes as ACP session modes: the editor's mode picker switches them (session/set_mode).
// What each mode does is the recipe's (tools-shell's PermissionMode); these are the words a person reads.
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import type { PermissionMode } from "@bridle/tools-shell";

const MODES: readonly (SessionMode & { readonly id: PermissionMode })[] = [
  { id: "read-only", name: "Read only", description: "No file writes; only commands proven read-only" },
  {
    id: "workspace",
    name: "Workspace",
    description: "Commands run in the sandbox unasked; without a sandbox, what is not proven read-only asks",
  },
  { id: "ask", name: "Ask", description: "Every write and every command not proven read-only asks" },
  { id: "full-access", name: "Full access", description: "No sandbox and no approvals" },
];

export function isPermissionMode(id: string): id is PermissionMode {
  return MODES.some((mode) => mode.id === id);
}

export function modeState(current: PermissionMode): SessionModeState {
  return { currentModeId: current, availableModes: MODES.map((mode) => ({ ...mode })) };
}
