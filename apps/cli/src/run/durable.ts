// Durable runs from the command line (@bridle/durable on DBOS): what a run records of its options, how a
// worker composes the agent for a run, and where the database is. The commands live in commands/worker.ts,
// commands/runs.ts and commands/durable-run.ts.
import { resolve } from "node:path";
import { createCodingAgent, DEFAULT_CODING } from "@bridle/coding-agent";
import { BridleError, type EventObserver, type SessionStore } from "@bridle/core";
import type { ComposeAgent, DurableRunRequest, JsonValue } from "@bridle/durable";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings, type Settings } from "../settings/config.js";
import { settleFlagsProvider } from "../settings/provider-choice.js";
import { warnLine } from "./agent.js";

/** The durable flags apart from the settings flags (the config loader knows nothing of them). */
export interface DurableChoice {
  readonly durable: boolean;
  readonly enqueue: boolean;
  readonly concurrency?: string;
  readonly reason?: string;
}

export function splitDurableFlags(flags: CliFlags): { durable: DurableChoice; rest: CliFlags } {
  const { durable, enqueue, concurrency, reason, ...rest } = flags;
  if (durable && enqueue)
    throw new CliError("give --durable (run it here) or --enqueue (a worker runs it), not both", 2);
  return {
    durable: {
      durable: durable === true,
      enqueue: enqueue === true,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(reason !== undefined ? { reason } : {}),
    },
    rest,
  };
}

/** The Postgres behind durable runs and their sessions: --database-url, else BRIDLE_DATABASE_URL. */
export function databaseUrlOf(flags: CliFlags, env: NodeJS.ProcessEnv = process.env): string {
  const url = flags.databaseUrl ?? env.BRIDLE_DATABASE_URL;
  if (!url)
    throw new CliError("durable runs need Postgres: pass --database-url URL or set BRIDLE_DATABASE_URL", 2);
  return url;
}

/**
 * The options a queued run records, so any worker runs it as it was asked: the flags that say what to run
 * and where. Never an API key (those come from each worker's environment), never the database URL.
 */
const RECORDED = [
  "provider",
  "model",
  "baseUrl",
  "maxTurns",
  "editFormat",
  "profile",
  "sandbox",
  "permissionMode",
  "yes",
] as const;

export function recordedOptions(flags: CliFlags): { readonly [key: string]: JsonValue } {
  const options: Record<string, JsonValue> = {};
  for (const key of RECORDED) {
    const value = flags[key];
    if (value !== undefined) options[key] = value;
  }
  // The workspace as an absolute path: the worker's current folder means nothing to the run.
  options.cwd = resolve(flags.cwd ?? process.cwd());
  return options;
}

/** The run's recorded options as flags, each only if it has the type the flag has. */
function optionsAsFlags(options: DurableRunRequest["options"]): CliFlags {
  const flags: Record<string, string | boolean> = {};
  for (const key of [...RECORDED, "cwd"] as const) {
    const value = options?.[key];
    if (key === "yes" ? typeof value === "boolean" : typeof value === "string")
      flags[key] = value as string | boolean;
  }
  return flags as CliFlags;
}

/**
 * Builds the agent for a durable run: the run's own options over the process's flags (which fill in what
 * the run lacks), through the same recipe as `bridle run` (coding overlay included), so a queued run is the
 * agent its person would have run here. The durable engine supplies the store and answers approvals.
 */
export function durableComposer(
  processFlags: CliFlags,
  store: SessionStore,
  observers: readonly EventObserver[] = [],
): ComposeAgent {
  return async (request) => {
    const flags: CliFlags = { ...processFlags, ...optionsAsFlags(request.options) };
    const settings = await settleFlagsProvider(await loadSettings(flags), flags);
    await refuseForeignEndpoint(processFlags, settings);
    const agent = await createCodingAgent(
      { ...settings, coding: DEFAULT_CODING },
      { mode: "durable", store, warn: warnLine, providers: settings.providerPlugins },
    );
    const { model, tools, approver: _approver, ...harness } = agent.options;
    return {
      model,
      tools: tools ?? [],
      store: agent.store,
      // full-access asks nothing; --yes answers what the mode asks.
      autoApprove: settings.yes || settings.permissionMode === "full-access",
      harness,
      ...(observers.length > 0 ? { observers } : {}),
      close: () => agent.close(),
    };
  };
}

/**
 * A worker's API keys go only where its own flags and config point: a queued run (whose options anyone
 * able to enqueue wrote) naming another provider or base URL is refused before any request is made.
 */
async function refuseForeignEndpoint(processFlags: CliFlags, run: Settings): Promise<void> {
  const own = await settleFlagsProvider(await loadSettings(processFlags), processFlags);
  const where = (settings: Settings) =>
    `provider ${settings.provider} at ${settings.baseUrl?.replace(/\/+$/, "") ?? "its default endpoint"}`;
  if (where(own) === where(run)) return;
  throw new BridleError(
    "invalid_config",
    `refused: the run names ${where(run)}, and this worker sends its API keys only to ${where(own)} (its flags and config); start a worker with --provider ${run.provider}${run.baseUrl ? ` --base-url ${run.baseUrl}` : ""} to run it`,
  );
}
