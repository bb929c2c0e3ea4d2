import { type RunEvent, sessionSink } from "@bridle/core";
import { composeAgent } from "../run/agent.js";
import { attachFiles } from "../run/attachments.js";
import { type CodingChoice, DEFAULT_CODING, HandoffReporter, splitCodingFlags } from "../run/coding.js";
import { pastedImages, readImageFiles, withImages } from "../run/images.js";
import { TurnCheckpoints } from "../run/rewind.js";
import { openSession } from "../run/session.js";
import { settleSession, splitSessionFlags } from "../run/session-choice.js";
import { openTracing, splitTraceFlags, type TraceChoice, tracedEndpoints } from "../run/tracing.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings, type Settings } from "../settings/config.js";
import { settleFlagsProvider } from "../settings/provider-choice.js";
import { approveEverything, denyWithoutTerminal, TerminalApprover } from "../terminal/approvers.js";
import { OrderedOutput } from "../terminal/ordered-output.js";
import { TerminalQuestions } from "../terminal/questions.js";
import { HumanRenderer } from "../terminal/render.js";
import { RunView } from "../terminal/run-view.js";
import { askOnTerminal, chooseOnTerminal } from "../terminal/terminal.js";
import { resumeRecap } from "../terminal/transcript.js";

/** `bridle run "<prompt>"`: one run, streamed; exit 0 when it completes. */
export async function runOnce(prompt: string, flags: CliFlags): Promise<number> {
  // --plan is the session mode to start in, not a setting.
  const { image: imageFiles = [], plan, ...withoutImages } = flags;
  const { coding, rest: flagsLeft } = splitCodingFlags(withoutImages);
  const { tracing, rest: traceLeft } = splitTraceFlags(flagsLeft);
  const { choice, rest } = splitSessionFlags(traceLeft);
  // A resumed session comes back in the mode of its last turn, planning included (session-mode.ts).
  const { settings, plan: wasPlanning } = await settleSession(
    await settleFlagsProvider(await loadSettings(rest), rest),
    choice,
    { say: (line) => void process.stderr.write(`${line}\n`) },
  );
  // @path attachments are said before the run's own lines.
  const attached = await attachFiles(prompt, settings.cwd, (line) => process.stderr.write(`${line}\n`));
  const outcome = await runWithSettings(attached, settings, {
    title: prompt,
    coding,
    tracing,
    images: { files: imageFiles, typed: prompt },
    ...(plan || wasPlanning ? { plan: true } : {}),
  });
  return outcome.exitCode;
}

export interface RunOptions {
  /** Sees every event after the renderer (the demo prints what the tools returned). */
  readonly observe?: (event: RunEvent) => void;
  /** The coding overlay and its handoff (default: on, 2 repair attempts). */
  readonly coding?: CodingChoice;
  /** OpenTelemetry spans of the run: an observer beside the session record (--trace, --otlp). */
  readonly tracing?: TraceChoice;
  /** A new session's title when it is not the prompt (the prompt as typed, before its attachments). */
  readonly title?: string;
  /** Images to send with the prompt: `--image` files, and image paths in the prompt as typed (images.ts). */
  readonly images?: { readonly files: readonly string[]; readonly typed: string };
  /** --plan: start in plan mode (only reads; a plan is accepted at the terminal, or is the run's answer). */
  readonly plan?: boolean;
}

export interface RunOutcome {
  readonly exitCode: number;
  readonly sessionId: string;
}

export async function runWithSettings(
  prompt: string,
  settings: Settings,
  options: RunOptions = {},
): Promise<RunOutcome> {
  const canAsk = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  // Counted so the renderer's "still running" ticker keeps quiet while a question is open.
  let openQuestions = 0;
  const askCounted = async (question: string, signal: AbortSignal) => {
    openQuestions++;
    try {
      return await askOnTerminal(question, signal);
    } finally {
      openQuestions--;
    }
  };
  const chooseCounted = async (question: string, keys: readonly string[], signal: AbortSignal) => {
    openQuestions++;
    try {
      return await chooseOnTerminal(question, keys, signal);
    } finally {
      openQuestions--;
    }
  };
  // full-access asks nothing; --yes answers every ask the mode raises (it never widens the mode).
  const approver =
    settings.yes || settings.permissionMode === "full-access"
      ? approveEverything
      : canAsk
        ? new TerminalApprover(askCounted, chooseCounted)
        : denyWithoutTerminal;
  const coding = options.coding ?? DEFAULT_CODING;
  // The agent's questions (the ask-the-user tool, accepting a plan) are asked at a terminal; without one the
  // tools tell the model nobody can answer.
  const questions = canAsk
    ? new TerminalQuestions(askCounted, (text) => void process.stderr.write(text))
    : undefined;
  const agent = await composeAgent(settings, approver, coding, "run", {
    ...(options.plan ? { startMode: "plan" as const } : {}),
    ...(questions ? { questions } : {}),
  });
  // A run's lines, in order; batched per event-loop turn when no person reads stderr (see OrderedOutput).
  const output = new OrderedOutput(process.stdout, process.stderr, { coalesce: !process.stderr.isTTY });
  const handoff = new HandoffReporter(coding, output.stderr);
  const tracing = await openTracing(options.tracing ?? {}, await tracedEndpoints(agent, settings));
  // Said once at start; the session records it too (the shell.permissions fact of each run).
  output.stderr.write(`bridle: ${agent.permissions}\n`);
  // The run's last line, said once the session is closed (its lock released): whoever waits for it may
  // go on at once, `bridle run -c` included.
  let closing: string | undefined;
  try {
    const say = (line: string) => output.stderr.write(`${line}\n`);
    const given = options.images ? await readImageFiles(options.images.files, settings.cwd, agent.model) : [];
    const images = options.images
      ? [...given, ...(await pastedImages(options.images.typed, settings.cwd, agent.model, say, given))]
      : [];
    const sent = withImages(prompt, images, say);
    const session = await openSession(agent.store, {
      ...(settings.session ? { session: settings.session } : {}),
      ...(settings.resume ? { resume: settings.resume } : {}),
      title: (options.title ?? prompt).slice(0, 80),
    });
    // Resumed: the person sees where the session stands before the new turn's output.
    if (settings.resume && !settings.json) output.stderr.write(resumeRecap(session.history));
    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts > 1) process.exit(130);
      output.stderr.write("\ninterrupted: stopping the run (Ctrl-C again to quit at once)\n");
      controller.abort();
    };
    process.on("SIGINT", onSigint);
    const renderer = new HumanRenderer({
      stdout: output.stdout,
      stderr: output.stderr,
      terminal: Boolean(process.stderr.isTTY),
      cost: agent.cost,
      asking: () => openQuestions > 0,
    });
    const view = new RunView({
      agent,
      history: session.history,
      json: settings.json,
      renderer,
      stdout: output.stdout,
      stderr: output.stderr,
      terminal: Boolean(process.stderr.isTTY),
    });
    // The files as they were before the run: `bridle sessions rewind` puts them back (run/rewind.ts).
    const rewind = await TurnCheckpoints.open(settings, agent.store, session.id, (text) =>
      output.stderr.write(text),
    );
    await rewind.before(options.title ?? prompt, (await agent.store.get(session.id))?.lastSeq ?? -1);
    try {
      const stream = agent.harness.stream({
        prompt: sent,
        history: session.history,
        sessionId: session.id,
        signal: controller.signal,
        // The store is the run's record (a failed write ends it as store_error); the tracer only watches.
        sink: sessionSink(agent.store, session.id),
        observers: [...tracing.observers, ...agent.observers],
        ...(session.queued?.length ? { queued: session.queued } : {}),
      });
      for await (const event of stream) {
        view.show(event);
        if (options.observe) {
          // The observer writes to the streams itself: what the run wrote before goes out first.
          output.flush();
          options.observe(event);
        }
        handoff.observe(event, { showPlan: !settings.json });
      }
      const result = await stream.result;
      // --keep-tasks: the tasks the run left running finish before the process ends (their events show).
      if (settings.keepTasks) await agent.kit.settle();
      const handed = await handoff.finish({ quiet: false });
      if (!settings.json) closing = `session: ${session.id}\n`;
      // A run that completed exits 1 all the same when its handoff says FAILED (a check fails on the final code).
      const exitCode =
        result.stopReason === "completed"
          ? (handed?.exitCode ?? 0)
          : result.stopReason === "aborted"
            ? 130
            : 1;
      return { exitCode, sessionId: session.id };
    } finally {
      await rewind.after();
      view.close();
      renderer.close();
      process.off("SIGINT", onSigint);
    }
  } finally {
    output.close();
    await tracing.close();
    await agent.close();
    if (closing) process.stderr.write(closing);
  }
}
