// The session's mode: plan (only reads; the model presents a plan for the person to accept) or one of the
// permission modes. One switch for every front door: the terminal's mode key and /mode, ACP's set_mode and
// the plan tool all set it, and the tools read it on every call (mode-tools.ts), so switching never rebuilds
// the agent and never changes the tools the model was shown.
import type { PermissionMode } from "@bridle/tools-shell";
import { CodingAgentError } from "./errors.js";

export type SessionMode = "plan" | PermissionMode;

export const SESSION_MODES: readonly SessionMode[] = ["plan", "read-only", "workspace", "ask", "full-access"];

export function isSessionMode(value: string): value is SessionMode {
  return (SESSION_MODES as readonly string[]).includes(value);
}

/** What a person reads beside the mode's name (the prompt line, ACP's mode picker). */
export const MODE_DESCRIPTIONS: Readonly<Record<SessionMode, string>> = {
  plan: "Only reads; the agent presents a plan for you to accept",
  "read-only": "No file writes; only commands proven read-only",
  workspace: "Commands run in the sandbox unasked; without a sandbox, what is not proven read-only asks",
  ask: "Every write and every command not proven read-only asks",
  "full-access": "No sandbox and no approvals",
};

export class ModeSwitch {
  /** The permission mode the tools were built with: what the session can switch among follows from it. */
  readonly base: PermissionMode;
  #mode: SessionMode;
  /** The permission mode the plan hands over to once accepted: the one in force before planning began. */
  #working: PermissionMode;
  readonly #listeners = new Set<(mode: SessionMode) => void>();

  constructor(base: PermissionMode, start: SessionMode = base) {
    this.base = base;
    this.#working = base;
    this.#mode = base;
    this.set(start);
  }

  get mode(): SessionMode {
    return this.#mode;
  }

  get working(): PermissionMode {
    return this.#working;
  }

  /** The permission mode commands run under now: plan runs them as read-only. */
  get commandMode(): PermissionMode {
    return this.#mode === "plan" ? "read-only" : this.#mode;
  }

  /**
   * The modes this session can be in, in the mode key's order: plan, the mode it started in, then the other
   * of workspace and ask. A read-only session never offered its writing tools, and a full-access one has no
   * sandbox and answers its own approvals, so neither switches to another permission mode.
   */
  available(): readonly SessionMode[] {
    if (this.base === "read-only" || this.base === "full-access") return ["plan", this.base];
    return ["plan", this.base, this.base === "workspace" ? "ask" : "workspace"];
  }

  /** The mode after this one in the key's cycle. */
  next(): SessionMode {
    const modes = this.available();
    return modes[(modes.indexOf(this.#mode) + 1) % modes.length] as SessionMode;
  }

  /** Switch, or say why not (CodingAgentError invalid_settings, in words a person can act on). */
  set(mode: SessionMode): void {
    if (!this.available().includes(mode)) {
      throw new CodingAgentError(
        "invalid_settings",
        `mode ${mode} is not available in a session started in ${this.base} mode (${this.available().join(", ")}); start it with --permission-mode ${mode}`,
      );
    }
    if (mode === this.#mode) return;
    if (mode !== "plan") this.#working = mode;
    this.#mode = mode;
    for (const listener of this.#listeners) listener(mode);
  }

  /** Called on each switch; returns a function that stops the calls. */
  onChange(listener: (mode: SessionMode) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
