import { openStore, sessionWorkspace } from "@bridle/coding-agent";
import { sessionTranscript } from "@bridle/core";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings } from "../settings/config.js";
import { oneLine, terminalJson } from "../terminal/display-text.js";
import { transcriptText } from "../terminal/transcript.js";

/**
 * `bridle sessions list | show ID | fork ID [--at SEQ]`. What a store holds (ids, titles, messages, tool
 * calls) is shown with its control characters escaped; JSON output keeps them as `\u` escapes.
 */
export async function sessionsCommand(args: readonly string[], flags: CliFlags): Promise<number> {
  const settings = await loadSettings(flags, process.env, undefined, { workspaceAgents: false });
  const store = await openStore(settings);
  const out = (text: string) => process.stdout.write(text);
  try {
    const [sub, id] = args;
    switch (sub) {
      case "list": {
        const sessions = [...(await store.list())].sort((a, b) => b.updatedAt - a.updatedAt);
        if (settings.json) {
          out(`${terminalJson(sessions)}\n`);
          return 0;
        }
        if (sessions.length === 0) out(`no sessions in ${oneLine(settings.storeDir)} (${settings.store})\n`);
        for (const s of sessions) {
          const when = new Date(s.updatedAt).toISOString().replace("T", " ").slice(0, 19);
          const fork = s.parent ? ` (fork of ${oneLine(s.parent.sessionId, 200)}@${s.parent.seq})` : "";
          // The recipe tags each session it records with its workspace.
          const workspace = sessionWorkspace(s) ?? "-";
          out(
            `${oneLine(s.id, 200)}  ${when}  ${s.lastSeq + 1} events  ${oneLine(workspace, 200)}  ${oneLine(s.title ?? "", 160)}${fork}\n`,
          );
        }
        return 0;
      }
      case "show": {
        if (!id) throw new CliError("usage: bridle sessions show ID", 2);
        if (!(await store.get(id))) throw new CliError(`no session "${oneLine(id, 200)}"`, 1);
        if (settings.json) {
          for await (const stored of store.read(id)) out(`${terminalJson(stored)}\n`);
          return 0;
        }
        // A damaged entry is missing from, or a placeholder in, what follows: say so before showing it.
        let damaged = 0;
        const transcript = await sessionTranscript(store, id, {
          onDamage: (stored) => {
            damaged++;
            process.stderr.write(`warning: entry ${stored.sessionSeq}: ${oneLine(stored.damage.message)}\n`);
          },
        });
        if (damaged > 0) {
          process.stderr.write(
            `warning: session ${oneLine(id, 200)} has ${damaged} damaged entr${damaged === 1 ? "y" : "ies"}\n`,
          );
        }
        out(transcriptText(transcript));
        return 0;
      }
      case "export":
        return await (await import("./sessions-export.js")).exportSession(
          store,
          id,
          flags.html,
          process.cwd(),
          settings.providerPlugins,
        );
      case "fork": {
        if (!id) throw new CliError("usage: bridle sessions fork ID [--at SEQ]", 2);
        const info = await store.get(id);
        if (!info) throw new CliError(`no session "${oneLine(id, 200)}"`, 1);
        const at = flags.at === undefined ? info.lastSeq : Number(flags.at);
        if (!Number.isInteger(at) || at < 0 || at > info.lastSeq) {
          throw new CliError(`--at must be a sequence number from 0 to ${info.lastSeq}`, 2);
        }
        const fork = await store.fork(id, at);
        out(settings.json ? `${terminalJson(fork)}\n` : `${oneLine(fork.id, 200)}\n`);
        return 0;
      }
      case "rewind":
        return await (await import("../run/rewind.js")).sessionsRewind(store, settings, id, flags.to, out);
      default:
        throw new CliError(
          "usage: bridle sessions list | show ID | fork ID [--at SEQ] | rewind ID [--to TURN] | export ID --html FILE",
          2,
        );
    }
  } finally {
    await store.close();
  }
}
