// Which stored session a run continues when the person did not name one: -c/--continue takes this
// workspace's latest, a bare --resume asks which on the terminal. Either settles into `resume: ID`. A
// resumed session comes back in the mode its last turn was in (session-mode.ts) unless --permission-mode
// says otherwise.
import { createInterface } from "node:readline/promises";
import { openStore, WorkspaceSessions, workspaceKey } from "@bridle/coding-agent";
import type { SessionInfo } from "@bridle/core";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import type { Settings } from "../settings/config.js";
import { oneLine } from "../terminal/display-text.js";
import { type ResumedMode, resumeInMode, storedSessionMode } from "./session-mode.js";

export interface SessionChoice {
  readonly continue?: boolean;
  readonly pick?: boolean;
  /** --permission-mode was given: a resumed session works in it, not in the mode it last had. */
  readonly modeGiven?: boolean;
}

/** The picker shows this many of the latest sessions. */
const PICK_LIMIT = 20;

export function splitSessionFlags(flags: CliFlags): { choice: SessionChoice; rest: CliFlags } {
  const { continue: latest, resumePick, ...rest } = flags;
  if ((latest || resumePick) && (rest.resume || rest.session)) {
    throw new CliError(
      `${latest ? "--continue" : "--resume"} picks the session itself; leave out --session and --resume ID`,
      2,
    );
  }
  if (latest && resumePick) throw new CliError("give --continue or --resume, not both", 2);
  return {
    choice: {
      ...(latest ? { continue: true } : {}),
      ...(resumePick ? { pick: true } : {}),
      ...(rest.permissionMode !== undefined ? { modeGiven: true } : {}),
    },
    rest,
  };
}

/** The session to resume and the mode to resume it in: plan is the caller's to start in. */
export async function settleSession(
  settings: Settings,
  choice: SessionChoice,
  options: { readonly ask?: (question: string) => Promise<string>; readonly say: (line: string) => void },
): Promise<ResumedMode> {
  const chosen = await chooseSession(settings, choice, options.ask ?? askOnStdin);
  if (chosen.resume === undefined || choice.modeGiven) return { settings: chosen, plan: false };
  return resumeInMode(chosen, await storedSessionMode(chosen, chosen.resume), options.say);
}

async function chooseSession(
  settings: Settings,
  choice: SessionChoice,
  ask: (question: string) => Promise<string>,
): Promise<Settings> {
  if (!choice.continue && !choice.pick) return settings;
  if (choice.pick && !(process.stdin.isTTY && process.stderr.isTTY)) {
    throw new CliError(
      "--resume without an id needs a terminal to pick on; give --resume ID (bridle sessions list)",
      2,
    );
  }
  const sessions = await workspaceSessions(settings);
  if (sessions.length === 0) {
    throw new CliError(
      `no sessions in ${oneLine(settings.cwd, 200)} to continue (bridle sessions list shows all)`,
      1,
    );
  }
  if (choice.continue) return { ...settings, resume: (sessions[0] as SessionInfo).id };
  const shown = sessions.slice(0, PICK_LIMIT);
  const lines = shown.map((s, i) => `${String(i + 1).padStart(3)}  ${sessionLine(s)}`);
  process.stderr.write(`sessions in ${oneLine(settings.cwd, 200)}, latest first:\n${lines.join("\n")}\n`);
  const answer = (await ask(`resume which (1-${shown.length})? `)).trim();
  const index = Number(answer);
  const picked = Number.isInteger(index) ? shown[index - 1] : undefined;
  if (!picked) throw new CliError(`no session ${oneLine(answer, 40) || "picked"}; nothing resumed`, 2);
  return { ...settings, resume: picked.id };
}

/** One session as a listing shows it: when, size, title. */
export function sessionLine(s: SessionInfo): string {
  const when = new Date(s.updatedAt).toISOString().replace("T", " ").slice(0, 16);
  return `${when}  ${oneLine(s.title ?? "(untitled)", 80)}  ${oneLine(s.id, 200)}`;
}

/** This workspace's sessions (as the recipe tagged them), latest first. */
async function workspaceSessions(settings: Settings): Promise<SessionInfo[]> {
  const store = await openStore(settings);
  try {
    const mine = new WorkspaceSessions(store, await workspaceKey(settings.cwd));
    return [...(await mine.list())].sort((a, b) => b.updatedAt - a.updatedAt);
  } finally {
    await store.close();
  }
}

async function askOnStdin(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // Ctrl-C at the question leaves without resuming (closing alone would leave the question unanswered).
  const stop = new AbortController();
  rl.on("SIGINT", () => stop.abort());
  try {
    return await rl.question(question, { signal: stop.signal });
  } catch {
    return "";
  } finally {
    rl.close();
  }
}
