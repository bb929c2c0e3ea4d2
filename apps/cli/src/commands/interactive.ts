import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline/promises";
import { type Message, type QueuedMessage, sessionSink, sessionTranscript } from "@bridle/core";
import { isPromptCommand, promptTurn } from "../mcp/mcp-prompts.js";
import { type Agent, composeAgent } from "../run/agent.js";
import { attachFiles } from "../run/attachments.js";
import { HandoffReporter, splitCodingFlags } from "../run/coding.js";
import {
  type CustomCommand,
  customCommandsHelp,
  expandCommand,
  loadCustomCommands,
} from "../run/custom-commands.js";
import { type ImageAttachment, pastedImages, readImageFiles, withImages } from "../run/images.js";
import { initPrompt } from "../run/init-prompt.js";
import { TurnCheckpoints } from "../run/rewind.js";
import { type OpenedSession, openSession } from "../run/session.js";
import { settleSession, splitSessionFlags } from "../run/session-choice.js";
import { openTracing, splitTraceFlags, tracedEndpoints } from "../run/tracing.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings } from "../settings/config.js";
import { settleFlagsProvider } from "../settings/provider-choice.js";
import { TerminalApprover, YesAtTerminal } from "../terminal/approvers.js";
import { oneLine, visible } from "../terminal/display-text.js";
import { modeCommand, modePrompt, watchModeKey } from "../terminal/mode-key.js";
import { withOneKey } from "../terminal/one-key.js";
import { pathCompleter } from "../terminal/path-completion.js";
import { TerminalQuestions } from "../terminal/questions.js";
import { HumanRenderer } from "../terminal/render.js";
import { RunView } from "../terminal/run-view.js";
import { sessionCostLine } from "../terminal/session-cost.js";
import { StreamedCalls } from "../terminal/streamed-calls.js";
import { resumeRecap } from "../terminal/transcript.js";
import { TurnInput } from "../terminal/turn-input.js";

const HELP = `/model NAME   switch model      /sessions   list sessions
/fork [SEQ]   branch this session here (or at SEQ) and continue on the branch
/compact [TEXT] summarize the conversation so far to free context (TEXT: what the summary should keep)
/cost         the session's tokens and cost so far
/init [TEXT]  have the agent draft AGENTS.md from the repository (or review the one there)
/mode [NAME]  show or set the mode (plan, or a permission mode); Shift-Tab cycles them
/undo         put back the files and the conversation as they were before the last turn
/rewind [N]   list the turns, or go back to the start of turn N (files and conversation)
/exit         leave (Ctrl-D, or Ctrl-C twice at the prompt); Ctrl-C stops the current turn
/prompts      the MCP servers' prompts; /mcp__SERVER__PROMPT [arg=value|value]… runs one as your turn
While the agent works, type: Enter steers it (delivered after its current tool calls, before it next
thinks); Alt+Enter, or /followup TEXT, queues a follow-up for when it would finish; another /command
runs when the turn ends.
`;

/**
 * The interactive session: a prompt, a streamed turn, repeat. Ctrl-C during a turn aborts that turn only;
 * the session (its transcript and store) carries on. Approvals are asked on the same line reader.
 */
export async function interactive(flags: CliFlags): Promise<number> {
  // --plan is the session mode to start in, not a setting.
  const { image: imageFiles = [], plan, ...withoutImages } = flags;
  const { coding, rest: flagsLeft } = splitCodingFlags(withoutImages);
  const { tracing: traceChoice, rest: traceLeft } = splitTraceFlags(flagsLeft);
  const { choice, rest } = splitSessionFlags(traceLeft);
  // Picked before this session's line reader exists: the picker reads its own line. A resumed session
  // comes back in the mode of its last turn, planning included.
  const { settings, plan: wasPlanning } = await settleSession(
    await settleFlagsProvider(await loadSettings(rest), rest),
    choice,
    { say: (line) => void process.stderr.write(`${line}\n`) },
  );
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    historySize: 200,
    // Tab after @ completes a workspace path (git-ignored, secret and protected paths not offered).
    completer: pathCompleter(settings.cwd),
  });
  let turn: AbortController | undefined;
  // At the prompt one Ctrl-C clears the line and asks; a second one in a row leaves (a slip costs nothing).
  let leaving = false;
  const leave = new AbortController();
  // Ctrl-D closes the reader: the pending question ends too, and the session says goodbye as with /exit.
  rl.once("close", () => leave.abort());
  rl.on("SIGINT", () => {
    if (turn) {
      turn.abort();
      process.stderr.write("\n(turn stopped)\n");
    } else if (leaving) {
      // Closing alone would leave the prompt's question pending for ever (and the process ending unsaid).
      leave.abort();
    } else {
      leaving = true;
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
      process.stderr.write("\n(press Ctrl-C again to exit, or type /exit)\n");
      rl.prompt();
    }
  });
  // What is typed while a turn runs goes to that run; an approval's answer is not a message.
  const input = new TurnInput(rl, process.stdin, process.stderr);
  // Counted here too: the renderer's "still running" ticker keeps quiet while a question is open.
  let openQuestions = 0;
  const asker = async (question: string, signal: AbortSignal) => {
    openQuestions++;
    try {
      return await input.asking(() => ask(rl, question, signal));
    } finally {
      openQuestions--;
    }
  };
  // --yes approves every call, but a person is here: an MCP server's form is still asked of them.
  // full-access asks nothing; --yes answers every ask the mode raises (it never widens the mode).
  const approver =
    settings.yes || settings.permissionMode === "full-access"
      ? new YesAtTerminal(asker)
      : new TerminalApprover(asker, (question, keys, signal) =>
          withOneKey(rl, process.stdin, keys, () => asker(question, signal)),
        );
  // The agent's questions (the ask-the-user tool, accepting a plan) on the same line reader; ↑/↓ pick.
  const questions = new TerminalQuestions(asker, (text) => void process.stderr.write(text), {
    input: process.stdin,
    setLine: (text) => {
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
      rl.write(text);
    },
  });
  let agent: Agent = await composeAgent(settings, approver, coding, "run", {
    switchModes: true,
    questions,
    ...(plan || wasPlanning ? { startMode: "plan" as const } : {}),
  });
  // Shift-Tab cycles the mode (mode-key.ts); the prompt shows it.
  let atPrompt = false;
  const stopModeKey = watchModeKey(
    rl,
    process.stdin,
    agent.modes,
    (text) => void process.stderr.write(text),
    () => atPrompt,
  );
  // One tracer for the session: each turn is a run, traced beside the session record.
  const tracing = await openTracing(traceChoice, await tracedEndpoints(agent, settings));
  let closing: string | undefined;
  try {
    // --image goes with the first prompt; one that cannot go stops the session before it starts.
    let givenImages: readonly ImageAttachment[] = await readImageFiles(imageFiles, settings.cwd, agent.model);
    const named = settings.session ?? settings.resume;
    // A new session is stored at its first prompt, which titles it (a store sets the title only at creation).
    let session: OpenedSession = named
      ? await openSession(agent.store, {
          ...(settings.session ? { session: settings.session } : {}),
          ...(settings.resume ? { resume: settings.resume } : {}),
        })
      : { id: randomUUID(), history: [] };
    let stored = named !== undefined;
    const storeSession = async (title?: string) => {
      if (stored) return;
      await agent.store.createSession({ id: session.id, ...(title ? { title: title.slice(0, 80) } : {}) });
      stored = true;
    };
    let history: readonly Message[] = session.history;
    // Read once at start, like every setting: a command file edited during the session waits for the next.
    const customCommands = await loadCustomCommands(settings.cwd, (text) =>
      process.stderr.write(`${text}\n`),
    );
    const say = (text: string) => void process.stderr.write(text);
    // A model's warnings are said once in the session, not at every prompt.
    const warned = new Set<string>();
    let rewind = await TurnCheckpoints.open(settings, agent.store, session.id, say);
    process.stderr.write(
      `bridle · ${settings.provider}/${agent.model.model} · ${settings.cwd} · session ${session.id}${history.length ? ` (${history.length} messages)` : ""}\nbridle: ${agent.permissions}\n/help for commands\n`,
    );
    if (settings.resume) process.stderr.write(resumeRecap(history));
    // A message typed as a turn was ending is the next prompt; ones a turn never delivered go to the next.
    let next: string | undefined;
    let carried: readonly QueuedMessage[] = session.queued ?? [];
    const laterLines: string[] = [];
    for (;;) {
      let line: string;
      try {
        if (next === undefined) next = laterLines.shift();
        if (next !== undefined) process.stderr.write(`› ${next}\n`);
        atPrompt = next === undefined;
        line = next ?? (await rl.question(modePrompt(agent.modes.mode), { signal: leave.signal })).trim();
        atPrompt = false;
        next = undefined;
        leaving = false;
      } catch {
        break; // closed: Ctrl-D, or Ctrl-C at the prompt
      }
      if (!line) continue;
      // A line, or an MCP prompt's messages (mcp-prompts.ts), is the next turn.
      let prompt: string | readonly Message[] = line;
      if (line.startsWith("/")) {
        const [command, arg] = line.split(/\s+/, 2);
        if (command === "/exit" || command === "/quit") break;
        if (command === "/help") process.stderr.write(HELP + customCommandsHelp(customCommands));
        else if (command === "/mode") process.stderr.write(modeCommand(agent.modes, arg));
        else if (command === "/model") {
          if (!arg) process.stderr.write(`model: ${agent.model.model}\n`);
          else {
            agent = await agent.withModel(arg);
            process.stderr.write(`model: ${arg}\n`);
          }
        } else if (command === "/sessions") {
          for (const s of await agent.store.list())
            process.stderr.write(
              `${oneLine(s.id, 200)}  ${s.lastSeq + 1} events  ${oneLine(s.title ?? "", 160)}\n`,
            );
        } else if (command === "/fork") {
          await storeSession();
          const info = await agent.store.get(session.id);
          const at = arg === undefined ? (info?.lastSeq ?? -1) : Number(arg);
          const fork = await agent.store.fork(session.id, at);
          session = { id: fork.id, history: await sessionTranscript(agent.store, fork.id) };
          history = session.history;
          rewind = await rewind.switchTo(agent.store, fork.id);
          process.stderr.write(
            `now on ${oneLine(fork.id, 200)} (fork of ${oneLine(fork.parent?.sessionId ?? "", 200)}@${at})\n`,
          );
        } else if (command === "/undo" || command === "/rewind") {
          const rewound = await rewind.command(command, arg, agent.store);
          if (rewound) {
            session = rewound;
            history = rewound.history;
          }
        } else if (command === "/compact") {
          await storeSession();
          const { compactSession } = await import("../run/compact.js");
          const outcome = await compactSession(
            agent,
            session.id,
            history,
            settings.contextWindow,
            line.slice(command.length).trim(),
          );
          history = outcome.history;
          process.stderr.write(`${visible(outcome.message)}\n`);
        } else if (command === "/init") {
          // A prompt like any other: the model reads the repository and writes AGENTS.md with its tools.
          const existing = existsSync(join(settings.cwd, "AGENTS.md"));
          prompt = initPrompt(existing, line.slice(command.length).trim());
          process.stderr.write(
            existing
              ? "init: asking the agent to review AGENTS.md against the repository\n"
              : "init: asking the agent to draft AGENTS.md from the repository\n",
          );
        } else if (command === "/cost") {
          process.stderr.write(await sessionCostLine(agent.store, session.id, (usage) => agent.cost(usage)));
        } else if (command !== undefined && customCommands.has(command.slice(1).toLowerCase())) {
          const custom = customCommands.get(command.slice(1).toLowerCase()) as CustomCommand;
          prompt = expandCommand(custom, line.slice(command.length).trim());
        } else if (command !== undefined && isPromptCommand(command)) {
          prompt = (await promptTurn(agent.mcpPrompts, line, (text) => process.stderr.write(text))) ?? line;
        } else process.stderr.write(`unknown command ${command}; /help lists them\n`);
        if (prompt === line) continue;
      }
      await storeSession(line);
      if (typeof prompt === "string") {
        const say = (text: string) => void process.stderr.write(`${text}\n`);
        const typed = prompt;
        const images = [
          ...givenImages,
          ...(await pastedImages(typed, settings.cwd, agent.model, say, givenImages)),
        ];
        givenImages = [];
        const sent = withImages(await attachFiles(typed, settings.cwd, say), images, say);
        prompt = typeof sent === "string" ? sent : [sent];
      }
      turn = new AbortController();
      let view: RunView | undefined;
      const renderer = new HumanRenderer({
        stdout: process.stdout,
        stderr: process.stderr,
        terminal: true,
        cost: agent.cost,
        asking: () => openQuestions > 0,
      });
      try {
        const before = (await agent.store.get(session.id))?.lastSeq ?? -1;
        await rewind.before(typeof prompt === "string" ? prompt : line, before);
        const stream = agent.harness.stream({
          prompt,
          history,
          sessionId: session.id,
          signal: turn.signal,
          sink: sessionSink(agent.store, session.id),
          observers: [...tracing.observers, ...agent.observers],
          queued: carried,
        });
        input.attach(stream);
        const calls = new StreamedCalls();
        // Each turn is one run with its own baseline: its handoff covers that turn's changes.
        const handoff = new HandoffReporter(coding, process.stderr);
        view = new RunView({
          agent,
          history,
          warned,
          json: false,
          renderer,
          stdout: process.stdout,
          stderr: process.stderr,
          terminal: true,
        });
        for await (const event of stream) {
          view.show(event);
          handoff.observe(event, { showPlan: true });
          input.observe(event);
          // A tool call shows while the model still writes it (the renderer shows it again, complete).
          const live = calls.observe(event);
          if (live) process.stderr.write(`\x1b[2m${live}\x1b[22m\n`);
        }
        const result = await stream.result;
        history = result.messages;
        carried = result.undelivered ?? [];
        await handoff.finish({ quiet: false });
      } finally {
        await rewind.after();
        view?.close();
        renderer.close();
        turn = undefined;
        next = input.detach();
        // Commands typed during the turn run now, before anything typed as it ended.
        const commands = input.commands();
        if (commands.length > 0) {
          if (next !== undefined) commands.push(next);
          next = commands.shift();
          laterLines.push(...commands);
        }
      }
    }
    // Said once the session is closed (its lock released), so whoever waits for it may resume it at once.
    if (stored) closing = `session: ${session.id}\n`;
    return 0;
  } finally {
    stopModeKey();
    rl.close();
    await tracing.close();
    await agent.close();
    if (closing) process.stderr.write(closing);
  }
}

async function ask(rl: Interface, question: string, signal: AbortSignal): Promise<string> {
  try {
    return await rl.question(question, { signal });
  } catch {
    return "";
  }
}
