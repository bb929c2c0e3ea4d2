import {
  type AnyHook,
  type AnyTool,
  defineHook,
  defineTool,
  ToolFailure,
  type Workspace,
} from "@bridle/core";
import { z } from "zod";
import type { OutputCapture } from "../output/capture.js";
import { type CommandExit, exitCodeOf, type OutputStream, type RunningCommand } from "../runners/runner.js";
import { escalationFields } from "./bash.js";
import type { ShellEnvironment } from "./environment.js";
import { capture } from "./run-captured.js";

interface Job {
  readonly id: string;
  readonly runId: string;
  readonly command: string;
  readonly cwd: string;
  readonly keepAlive: boolean;
  readonly startedAt: number;
  readonly running: RunningCommand;
  readonly logs: Record<OutputStream, OutputCapture>;
  /** Output not yet returned by bash_output, bounded: the oldest unread bytes are dropped first. */
  readonly unread: Record<OutputStream, Buffer[]>;
  readonly dropped: Record<OutputStream, number>;
  exit: CommandExit | undefined;
}

/** One background job as listed to the model. */
export interface BackgroundStatus {
  readonly id: string;
  readonly command: string;
  readonly running: boolean;
  readonly exit_code: number | null;
  readonly started_at: string;
  readonly stdout_file: string;
  readonly stderr_file: string;
}

const ID = z.string().min(1).describe("The id bash_start returned");

/**
 * Background commands: start one, read its output so far, stop it, list them. Jobs a run started are
 * stopped when it ends (install `hooks`), unless started with keep_alive; every job is killed when the
 * process exits.
 */
export class BackgroundCommands {
  readonly #env: ShellEnvironment;
  readonly #jobs = new Map<string, Job>();
  #next = 1;

  constructor(env: ShellEnvironment) {
    this.#env = env;
  }

  /** Stop the jobs of one run (those without keep_alive), or every job. */
  async stopAll(runId?: string): Promise<void> {
    const jobs = [...this.#jobs.values()].filter(
      (job) => runId === undefined || (job.runId === runId && !job.keepAlive),
    );
    await Promise.all(jobs.map((job) => job.running.stop()));
  }

  get hooks(): AnyHook[] {
    return [
      defineHook({
        event: "run_end",
        name: "stop-background-commands",
        handler: (input) => this.stopAll(input.runId),
      }),
    ];
  }

  get tools(): AnyTool[] {
    const env = this.#env;
    const start = defineTool({
      name: "bash_start",
      description:
        "Start a long-running shell command (a dev server, a watcher) in the background and return its id at once. " +
        "Read its output with bash_output, stop it with bash_stop. It is stopped when the run ends unless keep_alive is true.",
      inputSchema: z.object({
        command: z.string().min(1),
        cwd: z.string().min(1).optional(),
        keep_alive: z
          .boolean()
          .optional()
          .describe("Keep it running after this run ends (it still stops when the program exits)"),
        ...escalationFields,
      }),
      annotations: { destructive: true, open_world: env.sandbox.network !== "disabled" },
      needsApproval: (args, call) => env.needsApproval(args, call.workspace),
      approvalScope: (args, call) => env.approvalScope(args, call.workspace),
      execute: async (args, ctx) => {
        const { cwd } = await env.admit(args, ctx.workspace);
        const id = `bg${this.#next++}`;
        const logs = {
          stdout: capture(env, ctx.workspace, ctx.runId, `${id}.stdout`, 1),
          stderr: capture(env, ctx.workspace, ctx.runId, `${id}.stderr`, 1),
        };
        const unread: Job["unread"] = { stdout: [], stderr: [] };
        const dropped: Job["dropped"] = { stdout: 0, stderr: 0 };
        const cap = { stdout: env.sandbox.max_stdout_bytes, stderr: env.sandbox.max_stderr_bytes };
        let job: Job | undefined;
        const running = await env.runnerFor(args).start(
          {
            command: args.command,
            cwd,
            writableRoots: env.writableRoots(ctx.workspace),
            // Background jobs run until stopped; the run's end or the process's exit stops them.
            timeoutMs: 2_147_483_647,
            killGraceMs: env.killGraceMs,
            onOutput: (stream, chunk) => {
              if (!logs[stream].push(chunk)) void job?.running.stop();
              const buffers = unread[stream];
              buffers.push(Buffer.from(chunk));
              let size = buffers.reduce((sum, b) => sum + b.length, 0);
              while (size > cap[stream] && buffers.length > 1) {
                const first = buffers.shift() as Buffer;
                size -= first.length;
                dropped[stream] += first.length;
              }
            },
          },
          env.sandbox,
        );
        job = {
          id,
          runId: ctx.runId,
          command: args.command,
          cwd,
          keepAlive: args.keep_alive ?? false,
          startedAt: Date.now(),
          running,
          logs,
          unread,
          dropped,
          exit: undefined,
        };
        const started = job;
        this.#jobs.set(id, started);
        void running.done.then(
          (exit) => {
            started.exit = exit;
            for (const log of Object.values(logs)) log.finish();
          },
          () => {},
        );
        return {
          content: JSON.stringify({ id, pid: running.pid ?? null, command: args.command }),
          details: this.#status(started, ctx.workspace),
        };
      },
    });

    const output = defineTool({
      name: "bash_output",
      description:
        "Read what a background command printed since the last read, and whether it is still running.",
      inputSchema: z.object({ id: ID }),
      annotations: { read_only: true },
      execute: async ({ id }, ctx) => {
        const job = this.#job(id);
        const read = (stream: OutputStream) => {
          const text = Buffer.concat(job.unread[stream]).toString("utf8");
          const lost = job.dropped[stream];
          job.unread[stream].length = 0;
          job.dropped[stream] = 0;
          return lost > 0
            ? `[… ${lost} earlier bytes not shown; all output is in ${this.#status(job, ctx.workspace)[`${stream}_file`]} …]\n${text}`
            : text;
        };
        const status = this.#status(job, ctx.workspace);
        return {
          content: JSON.stringify({
            id,
            running: status.running,
            exit_code: status.exit_code,
            stdout: read("stdout"),
            stderr: read("stderr"),
          }),
          details: status,
        };
      },
    });

    const stop = defineTool({
      name: "bash_stop",
      description: "Stop a background command (SIGTERM to its process tree, then SIGKILL).",
      inputSchema: z.object({ id: ID }),
      execute: async ({ id }, ctx) => {
        const job = this.#job(id);
        job.exit = await job.running.stop();
        const status = this.#status(job, ctx.workspace);
        return {
          content: JSON.stringify({ id, running: false, exit_code: status.exit_code }),
          details: status,
        };
      },
    });

    const list = defineTool({
      name: "bash_list",
      description: "List the background commands: id, command, whether each is running, its exit code.",
      inputSchema: z.object({}),
      annotations: { read_only: true },
      execute: async (_args, ctx) => {
        const jobs = [...this.#jobs.values()].map((job) => this.#status(job, ctx.workspace));
        return {
          content: JSON.stringify(
            jobs.map(({ id, command, running, exit_code }) => ({ id, command, running, exit_code })),
          ),
          details: jobs,
        };
      },
    });
    return [start, output, stop, list];
  }

  #job(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job) {
      const known = [...this.#jobs.keys()].join(", ") || "none";
      throw new ToolFailure("NotFound", `no background command ${id} (known: ${known})`);
    }
    return job;
  }

  #status(job: Job, workspace: Workspace): BackgroundStatus {
    const exit = job.exit;
    return {
      id: job.id,
      command: job.command,
      running: exit === undefined,
      exit_code: exit ? exitCodeOf(exit) : null,
      started_at: new Date(job.startedAt).toISOString(),
      stdout_file: workspace.display(this.#env.outputPath(workspace, job.runId, `${job.id}.stdout`)),
      stderr_file: workspace.display(this.#env.outputPath(workspace, job.runId, `${job.id}.stderr`)),
    };
  }
}
