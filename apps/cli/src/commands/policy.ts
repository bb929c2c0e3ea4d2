import type { CliFlags } from "../settings/args.js";
import { loadSettings } from "../settings/config.js";

/** Exit codes a script can branch on; 2 is also bad usage, so 2 always means "do not run it". */
const EXIT_CODE = { allow: 0, ask: 1, deny: 2 } as const;

/** `bridle policy check "<command>"`: the bash tool's verdict on a command, with its reasons. */
export async function policyCheck(command: string, flags: CliFlags): Promise<number> {
  const settings = await loadSettings(flags, process.env, undefined, { workspaceAgents: false });
  const { checkCommand } = await import("@bridle/shell-policy");
  const result = await checkCommand(command, { workspace: settings.cwd });
  if (settings.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return EXIT_CODE[result.decision];
  }
  const out: string[] = [`${result.decision}: ${command}`];
  for (const reason of result.reasons) out.push(`  - ${reason}`);
  if (result.subcommands.length > 0) out.push("sub-commands:");
  for (const sub of result.subcommands) {
    const wrappers = sub.wrappers.length > 0 ? ` (via ${sub.wrappers.join(", ")})` : "";
    out.push(`  ${sub.decision.padEnd(5)} ${sub.argv.join(" ")}  [${sub.foundIn}]${wrappers}`);
    for (const path of sub.paths) {
      const where = path.inside ? "inside" : "OUTSIDE";
      out.push(
        `        ${path.access} ${path.path} → ${path.resolved} (${where}${path.secret ? ", secret" : ""})`,
      );
    }
  }
  if (result.suggested_rule) out.push(`rule you could save: ${JSON.stringify(result.suggested_rule)}`);
  process.stdout.write(`${out.join("\n")}\n`);
  return EXIT_CODE[result.decision];
}
