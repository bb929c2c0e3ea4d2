// Entry point. Kept tiny so `bridle --version` and `--help` start fast: every command, provider and tool
// package is imported only when the command that needs it runs.
import { parseCommandLine } from "./args.js";
import { CliError } from "./cli-error.js";
import { VERSION } from "./version.js";

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === "version") {
    process.stdout.write(`bridle ${VERSION}\n`);
    return 0;
  }
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return 0;
  }
  const { runCommand } = await import("./commands/dispatch.js");
  return runCommand(parsed);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      process.stderr.write(`bridle: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(
        `bridle: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 70;
    }
  },
);
