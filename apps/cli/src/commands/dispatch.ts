import { CliError } from "../cli-error.js";
import type { ParsedCommandLine } from "../settings/args.js";

type Command = Extract<ParsedCommandLine, { kind: "command" }>;

/** Runs one parsed command and returns its exit code. */
export async function runCommand(command: Command): Promise<number> {
  switch (command.command) {
    case "run": {
      const prompt = command.positionals.join(" ").trim();
      if (!prompt) throw new CliError('bridle run needs a prompt: bridle run "<prompt>"', 2);
      if (command.flags.durable || command.flags.enqueue) {
        const { splitDurableFlags } = await import("../run/durable.js");
        const { durable, rest } = splitDurableFlags(command.flags);
        return (await import("./durable-run.js")).durableRun(prompt, durable, rest);
      }
      const { runOnce } = await import("./run.js");
      return runOnce(prompt, command.flags);
    }
    case "interactive": {
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        throw new CliError('no terminal: use bridle run "<prompt>" for a one-shot run', 2);
      }
      const { interactive } = await import("./interactive.js");
      return interactive(command.flags);
    }
    case "sessions": {
      const { sessionsCommand } = await import("./sessions.js");
      return sessionsCommand(command.positionals, command.flags);
    }
    case "tools": {
      if (command.positionals[0] !== "list") throw new CliError("usage: bridle tools list [--json]", 2);
      const { toolsList } = await import("./tools.js");
      return toolsList(command.flags);
    }
    case "policy": {
      if (command.positionals[0] !== "check" || command.positionals.length < 2) {
        throw new CliError('usage: bridle policy check "<command>" [--json]', 2);
      }
      const { policyCheck } = await import("./policy.js");
      return policyCheck(command.positionals.slice(1).join(" "), command.flags);
    }
    case "skills":
      return (await import("./skills.js")).skillsCommand(command.positionals, command.flags);
    case "view": {
      const { viewCommand } = await import("./view.js");
      return viewCommand(command.flags);
    }
    case "demo": {
      const { demo } = await import("./demo.js");
      return demo(command.flags);
    }
    case "worker":
      return (await import("./worker.js")).workerCommand(command.flags);
    case "runs":
      return (await import("./runs.js")).runsCommand(command.positionals, command.flags);
    case "acp":
      if (command.positionals.length > 0) throw new CliError("usage: bridle acp [options]", 2);
      return (await import("./acp.js")).acpCommand(command.flags);
  }
}
