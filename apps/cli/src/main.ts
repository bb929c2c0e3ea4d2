// Entry point. Kept tiny so `bridle --version` and `--help` start fast: every command, provider and tool
// package is imported only when the command that needs it runs.

import { describeFailure, NODE_NEEDED, nodeIsRecentEnough } from "./cli-error.js";
import { startCompileCache } from "./compile-cache.js";
import { parseCommandLine } from "./settings/args.js";
import { checkCwdFlag } from "./settings/cwd-flag.js";
import { visible } from "./terminal/display-text.js";
import { handOffSecrets } from "./trust/secret-handoff.js";
import { VERSION } from "./version.js";

// First of all, before any code that needs a modern Node runs: on an older one, say which Node is needed
// instead of failing later with a missing module or function.
if (!nodeIsRecentEnough()) {
  process.stderr.write(
    `bridle: needs Node ${NODE_NEEDED.join(".")} or newer; this is Node ${process.versions.node}\n`,
  );
  process.exit(1);
}

// Before anything else: API keys leave the exec-time environment (/proc/<pid>/environ) by re-executing.
// `bridle --version` / `--help` alone run nothing: they skip the second start (~50–100 ms).
const printsOnly =
  process.argv.length === 3 && ["--version", "-v", "--help", "-h"].includes(process.argv[2] ?? "");
const handOffWarning = printsOnly ? undefined : handOffSecrets();
if (handOffWarning) process.stderr.write(`bridle: warning: ${handOffWarning}\n`);

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
  checkCwdFlag(parsed.flags.cwd);
  await startCompileCache();
  const { runCommand } = await import("./commands/dispatch.js");
  return runCommand(parsed);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const failure = describeFailure(error);
    // A failure's message can quote a server, a file or the model: shown, never obeyed by the terminal.
    process.stderr.write(`${visible(failure.line)}\n`);
    process.exitCode = failure.exitCode;
  },
);
