// The CLI's side of settling the provider (the rules are the recipe's, over the providers' descriptors):
// a provider named by a flag is never changed for the person.
import { settleProvider } from "@bridle/coding-agent";
import type { CliFlags } from "./args.js";
import type { Settings } from "./config.js";

export function settleFlagsProvider(
  settings: Settings,
  flags: CliFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Settings> {
  return settleProvider(settings, {
    providerGiven: flags.provider !== undefined,
    env,
    extra: settings.providerPlugins,
  });
}
