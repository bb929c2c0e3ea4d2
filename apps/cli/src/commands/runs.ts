import { BridleError } from "@bridle/core";
import { DbosRunQueue, type DurableRunInfo } from "@bridle/durable";
import type { CliFlags } from "../args.js";
import { CliError } from "../cli-error.js";
import { databaseUrlOf, splitDurableFlags } from "../durable.js";

const USAGE =
  "usage: bridle runs list | show ID | wait ID | approve ID CALL | reject ID CALL [--reason TEXT] [--json]";

/** `bridle runs …`: durable runs and their queue, seen from any machine on the same database. */
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
    throw new CliError(`cannot reach the durable runs' database: ${error.message}`);
  });
  const out = (text: string) => process.stdout.write(text);
  try {
    switch (verb) {
      case "list": {
        const runs = await queue.list({ limit: 100 });
        if (rest.json) out(`${JSON.stringify(runs)}\n`);
        else if (runs.length === 0) out("no durable runs\n");
        else for (const run of runs) out(`${summary(run)}\n`);
        return 0;
      }
      case "show": {
        const run = await found(queue, id as string);
        const pending = await queue.pendingApprovals(run.runId);
        if (rest.json) out(`${JSON.stringify({ ...run, pendingApprovals: pending })}\n`);
        else {
          out(`${summary(run)}\n`);
          if (run.request)
            out(`session ${run.request.sessionId}, options ${JSON.stringify(run.request.options ?? {})}\n`);
          for (const item of pending) {
            out(
              `waits on ${item.toolCallId} (${item.toolName} ${JSON.stringify(item.args).slice(0, 200)}): ${item.message}\n`,
            );
            out(
              `  bridle runs approve ${run.runId} ${item.toolCallId}   or   bridle runs reject ${run.runId} ${item.toolCallId}\n`,
            );
          }
          if (run.outcome) out(`${run.outcome.finalText}\n`);
          if (run.error) out(`error: ${run.error}\n`);
        }
        return 0;
      }
      case "wait": {
        await found(queue, id as string);
        const run = await queue.wait(id as string);
        if (rest.json) out(`${JSON.stringify(run)}\n`);
        else if (run.outcome) out(`${run.outcome.finalText}\n`);
        if (run.outcome?.error)
          process.stderr.write(`bridle: ${run.outcome.stopReason}: ${run.outcome.error.message}\n`);
        if (run.error) process.stderr.write(`bridle: run ${run.status}: ${run.error}\n`);
        return run.status === "finished" && run.outcome?.stopReason === "completed" ? 0 : 1;
      }
      default: {
        await found(queue, id as string);
        const approved = verb === "approve";
        await queue.decide(id as string, call as string, {
          approved,
          ...(durable.reason !== undefined ? { reason: durable.reason } : {}),
        });
        process.stderr.write(`${approved ? "approved" : "rejected"} ${call} of run ${id}\n`);
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof BridleError)
      throw new CliError(error.message, error.code === "invalid_argument" ? 2 : 1);
    throw error;
  } finally {
    await queue.close();
  }
}

async function found(queue: DbosRunQueue, id: string): Promise<DurableRunInfo> {
  const run = await queue.get(id);
  if (!run) throw new CliError(`no durable run "${id}"`, 1);
  return run;
}

function summary(run: DurableRunInfo): string {
  const when = new Date(run.createdAt).toISOString().replace("T", " ").slice(0, 19);
  const outcome = run.outcome ? ` ${run.outcome.stopReason}` : "";
  const prompt = (run.request?.prompt ?? "").replace(/\s+/g, " ").slice(0, 60);
  return `${run.runId}  ${run.status}${outcome}  ${when}  ${prompt}`;
}
