import { CommandPolicy } from "@bridle/shell-policy";
import { LocalRunner, ShellEnvironment } from "../../src/index.js";
import type { Judge } from "./run.js";
import type { Profile } from "./vocabulary.js";

/**
 * Judge with HOME set to the world's, as the agent and its commands share one HOME: `~` and the history
 * check's git then see the HOME the commands will. One judgement at a time, since HOME is this process's.
 */
function inWorldHome(judge: Judge): Judge {
  let queue: Promise<unknown> = Promise.resolve();
  return (command, world, cwd) => {
    const turn = queue.then(async () => {
      const saved = process.env.HOME;
      process.env.HOME = world.home;
      try {
        return await judge(command, world, cwd);
      } finally {
        if (saved === undefined) delete process.env.HOME;
        else process.env.HOME = saved;
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  };
}

/** A policy a campaign holds sequences to: how each step is judged, and what to call it in a report. */
export interface PolicyUnderTest {
  readonly name: string;
  /** Whether it lets writes inside the workspace through, which decides what the generator proposes. */
  readonly profile: Profile;
  readonly judge: Judge;
  close(): Promise<void>;
}

/**
 * What the bash tool applies with a local runner (no sandbox: the policy is the boundary), taken from the
 * tool's own environment rather than rebuilt here, so the generator holds whatever the tool ships to it:
 * each call judged from its resolved cwd in the run's workspace.
 */
export async function bashToolPolicy(): Promise<PolicyUnderTest> {
  const runner = new LocalRunner({ warmStart: false, spawner: false });
  const environment = await ShellEnvironment.create({ runner });
  const policy = environment.policy;
  if (!policy) throw new Error("the bash tool has no command policy by default");
  return {
    name: `the bash tool's policy with a local runner (mode ${policy.options.mode ?? "workspace-write"})`,
    profile: policy.options.mode ?? "workspace-write",
    judge: inWorldHome(async (command, world, cwd) => {
      const verdict = await environment.verdict({ command, cwd }, world.workspace);
      return { decision: verdict?.decision ?? "ask", reason: verdict?.reasons[0] ?? "no verdict" };
    }),
    close: () => runner.close(),
  };
}

/** `checkCommand`'s default: the policy a library user gets with no options (writes inside the workspace allowed). */
export function checkCommandPolicy(): PolicyUnderTest {
  const policy = new CommandPolicy();
  return {
    name: `checkCommand's default policy (mode ${policy.options.mode ?? "workspace-write"})`,
    profile: policy.options.mode ?? "workspace-write",
    judge: inWorldHome(async (command, world, cwd) => {
      const verdict = await policy.check(command, world.workspace, cwd);
      return { decision: verdict.decision, reason: verdict.reasons[0] ?? "" };
    }),
    close: async () => {},
  };
}
