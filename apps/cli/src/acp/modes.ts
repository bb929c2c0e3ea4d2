// The session modes as ACP session modes: the editor's mode picker switches them (session/set_mode). Plan is
// the coding-agent's plan mode (only reads until the person accepts a plan); the others are the permission
// modes. What each does is the recipe's; the descriptions a person reads are the recipe's too.
import type { SessionMode as AcpMode, SessionModeState } from "@agentclientprotocol/sdk";
import { isSessionMode, MODE_DESCRIPTIONS, SESSION_MODES, type SessionMode } from "@bridle/coding-agent";

const NAMES: Readonly<Record<SessionMode, string>> = {
  plan: "Plan",
  "read-only": "Read only",
  workspace: "Workspace",
  ask: "Ask",
  "full-access": "Full access",
};

const MODES: readonly (AcpMode & { readonly id: SessionMode })[] = SESSION_MODES.map((id) => ({
  id,
  name: NAMES[id],
  description: MODE_DESCRIPTIONS[id],
}));

export function isAcpMode(id: string): id is SessionMode {
  return isSessionMode(id);
}

export function modeState(current: SessionMode): SessionModeState {
  return { currentModeId: current, availableModes: MODES.map((mode) => ({ ...mode })) };
}
