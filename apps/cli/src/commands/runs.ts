import { BridleError } from "@bridle/core";
import { DbosRunQueue, type DurableRunInfo, describeWait } from "@bridle/durable";
import { CliError } from "../cli-error.js";
import { databaseUrlOf, splitDurableFlags } from "../run/durable.js";
import type { CliFlags } from "../settings/args.js";
import { oneLine, terminalJson, visible } from "../terminal/display-text.js";

const USAGE =
  "usage: bridle runs list | show ID | wait ID | approve ID CALL | reject ID CALL [--reason TEXT] [--json]";

/**
 * `bridle runs …`: durable runs and their queue, seen from any machine on the same database. What the
 * database holds (prompts, answers, tool arguments, errors) is shown with its control characters escaped.
 */
export async function runsCommand(positionals: readonly string[], flags: CliFlags): Promise<number> {
  const { durable, rest } = splitDurableFlags(flags);
  const [verb, id, call] = positionals;
  const needs = verb === "approve" || verb === "reject" ? 3 : verb === "list" ? 1 : 2;
  if (
    !verb ||
    !["list", "show", "wait", "approve", "reject"].includes(verb) ||
    positionals.length !== needs
  ) {
    throw new CliError(USAGE, 2);
  }
  const queue = await DbosRunQueue.open({ databaseUrl: databaseUrlOf(rest) }).catch((error: Error) => {
    throw new CliError(`cannot reach the durable runs' database: ${oneLine(error.message)}`);
  });
  const out = (text: string) => process.stdout.write(text);
  try {
    switch (verb) {
      case "list": {
        const runs = await queue.list({ limit: 100 });
        if (rest.json) out(`${terminalJson(runs)}\n`);
        else if (runs.length === 0) out("no durable runs\n");
        else for (const run of runs) out(`${summary(run)}\n`);
        return 0;
      }
      case "show": {
        const run = await found(queue, id as string);
        const pending = await queue.pendingApprovals(run.runId);
        if (rest.json) out(`${terminalJson({ ...run, pendingApprovals: pending })}\n`);
        else {
          out(`${summary(run)}\n`);
          if (run.request)
            out(
              `session ${oneLine(run.request.sessionId, 200)}, options ${oneLine(JSON.stringify(run.request.options ?? {}), 2_000)}\n`,
            );
          for (const item of pending) {
            out(
              `waits on ${oneLine(item.toolCallId, 200)} (${oneLine(item.toolName, 80)} ${oneLine(JSON.stringify(item.args) ?? "", 200)}): ${oneLine(item.message)}\n`,
            );
            out(
              `  bridle runs approve ${oneLine(run.runId, 200)} ${oneLine(item.toolCallId, 200)}   or   bridle runs reject ${oneLine(run.runId, 200)} ${oneLine(item.toolCallId, 200)}\n`,
            );
          }
          if (run.outcome) out(`${visible(run.outcome.finalText)}\n`);
          if (run.error) out(`error: ${visible(run.error)}\n`);
        }
        return 0;
      }
      case "wait": {
        await found(queue, id as string);
        const run = await queue.wait(id as string);
        if (rest.json) out(`${terminalJson(run)}\n`);
        else if (run.outcome) out(`${visible(run.outcome.finalText)}\n`);
        if (run.outcome?.error)
          process.stderr.write(`bridle: ${run.outcome.stopReason}: ${visible(run.outcome.error.message)}\n`);
        if (run.error) process.stderr.write(`bridle: run ${run.status}: ${visible(run.error)}\n`);
        return run.status === "finished" && run.outcome?.stopReason === "completed" ? 0 : 1;
      }
      default: {
        await found(queue, id as string);
        const approved = verb === "approve";
        await queue.decide(id as string, call as string, {
          approved,
          ...(durable.reason !== undefined ? { reason: durable.reason } : {}),
        });
        process.stderr.write(
          `${approved ? "approved" : "rejected"} ${oneLine(call as string, 200)} of run ${oneLine(id as string, 200)}\n`,
        );
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof BridleError)
      throw new CliError(visible(error.message), error.code === "invalid_argument" ? 2 : 1);
    throw error;
  } finally {
    await queue.close();
  }
}

async function found(queue: DbosRunQueue, id: string): Promise<DurableRunInfo> {
  const run = await queue.get(id);
  if (!run) throw new CliError(`no durable run "${oneLine(id, 200)}"`, 1);
  return run;
}

/**
 * One line per run: its id, its state (and what it waits on a person for, or why it failed), when it
 * was queued, its last recorded step and when, the process holding it, and the start of its prompt.
 */
function summary(run: DurableRunInfo): string {
  const time = (at: number) => new Date(at).toISOString().replace("T", " ").slice(0, 19);
  const parts = [oneLine(run.runId, 200), state(run), time(run.createdAt)];
  if (run.lastStep)
    parts.push(
      `last step ${oneLine(run.lastStep.name, 80)}${run.lastStep.at === undefined ? "" : ` at ${time(run.lastStep.at)}`}`,
    );
  if (run.executor && (run.status === "running" || run.status === "queued"))
    parts.push(`held by ${oneLine(run.executor, 120)}`);
  parts.push(oneLine(run.request?.prompt ?? "", 60));
  return parts.join("  ");
}

function state(run: DurableRunInfo): string {
  if (run.tampered) return `refused (${oneLine(run.tampered, 200)})`;
  const [waiting] = run.waitingOn ?? [];
  if (run.status === "running" && waiting)
    return `waiting for a person: ${oneLine(describeWait(waiting), 200)}`;
  if (run.status === "finished") return `finished ${run.outcome?.stopReason ?? ""}`.trim();
  if (run.status === "failed" && run.error) return `failed: ${oneLine(run.error, 200)}`;
  return run.status;
}
