// `bridle view [--port N]`: the viewer server over this user's session stores: the configured one, and
// the other local store too when it has a file (so sessions recorded with --store jsonl and --store
// sqlite are listed together). It runs until interrupted.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openStore, sessionPageOptions } from "@bridle/coding-agent";
import type { NamedStore } from "@bridle/viewer";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import { loadSettings, type Settings } from "../settings/config.js";
import { oneLine } from "../terminal/display-text.js";

const LOCAL_STORES = { jsonl: "jsonl", sqlite: "sessions.sqlite" } as const;

async function openStores(settings: Settings): Promise<NamedStore[]> {
  const stores: NamedStore[] = [{ name: settings.store, store: await openStore(settings) }];
  for (const [name, file] of Object.entries(LOCAL_STORES)) {
    if (name === settings.store || !existsSync(join(settings.storeDir, file))) continue;
    stores.push({ name, store: await openStore({ ...settings, store: name as keyof typeof LOCAL_STORES }) });
  }
  return stores;
}

function portOf(flag: string | undefined): number {
  if (flag === undefined) return 0;
  const port = Number(flag);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CliError("--port must be 0-65535", 2);
  return port;
}

export async function viewCommand(flags: CliFlags): Promise<number> {
  const port = portOf(flags.port);
  const settings = await loadSettings(flags, process.env, undefined, { workspaceAgents: false });
  const stores = await openStores(settings);
  const closeStores = () => Promise.allSettled(stores.map(({ store }) => store.close()));
  const { startViewServer } = await import("@bridle/viewer");
  let server: Awaited<ReturnType<typeof startViewServer>>;
  try {
    server = await startViewServer({ stores, port, ...(await sessionPageOptions(settings.providerPlugins)) });
  } catch (error) {
    await closeStores();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new CliError(`port ${port} is in use`, 1);
    throw error;
  }
  process.stderr.write(
    `bridle view: ${stores.map((s) => s.name).join(", ")} sessions in ${oneLine(settings.storeDir, 1_000)}; Ctrl-C stops\n`,
  );
  // The URL alone on stdout: it carries this start's token, for a browser or a script.
  process.stdout.write(`${server.url}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
  await closeStores();
  return 0;
}
