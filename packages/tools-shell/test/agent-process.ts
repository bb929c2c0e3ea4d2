import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const src = (path: string) => new URL(`../src/${path}`, import.meta.url).href;
const packages = fileURLToPath(new URL("../../", import.meta.url));

// Node 24 runs TypeScript by stripping types; this hook maps the sources' `./x.js` imports to `./x.ts`
// and `@bridle/core` (and `@bridle/core/node`) to its source, as the vitest alias does, so a plain node process runs them.
const LOADER = `
export async function resolve(specifier, context, next) {
  const pkg = /^@bridle\\/([a-z0-9-]+)$/.exec(specifier);
  if (pkg) return next(${JSON.stringify(`file://${packages}`)} + pkg[1] + "/src/index.ts", context);
  if (specifier === "@bridle/core/node") return next(${JSON.stringify(`file://${packages}`)} + "core/src/node/index.ts", context);
  try {
    return await next(specifier, context);
  } catch (error) {
    if (specifier.startsWith(".") && specifier.endsWith(".js")) return next(specifier.slice(0, -3) + ".ts", context);
    throw error;
  }
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(LOADER)}`)});`;

export interface AgentOptions {
  readonly runner: "local" | "bwrap";
  readonly command: string;
  readonly cwd: string;
  /** The environment the agent process is started with (and so shows in /proc/<pid>/environ). */
  readonly env: NodeJS.ProcessEnv;
  /** Extra words on the agent's command line (so they show in /proc/<pid>/cmdline). */
  readonly argv?: readonly string[];
  readonly pidNamespace?: boolean;
  /** Whether the local runner starts its warm chains from the spawner process (default: the runner's). */
  readonly spawner?: boolean;
  /**
   * Run `true` first and wait until a chain is ready, so that `command` is warm-started (a LocalRunner
   * with the pid namespace): it then runs in a chain made ahead, by the spawner when there is one.
   */
  readonly warmFirst?: boolean;
  /** Start it through `sh -c '…; true'`, so an ancestor holds the same environment. */
  readonly throughShell?: boolean;
  /**
   * A file the agent inherits open on fd 100 without O_CLOEXEC, as a careless parent may leave one (Node
   * marks the descriptors up to the first gap above 15 O_CLOEXEC at start, not the ones past it).
   */
  readonly inheritedFile?: string;
}

/**
 * A real agent process: node running the runner from source, starting one command and echoing its
 * output; it prints `exit <json>` to stderr when the command ends.
 */
export function startAgent(options: AgentOptions): ChildProcess {
  const script = `
    const { LocalRunner } = await import(${JSON.stringify(src("runners/local.ts"))});
    const { BubblewrapRunner } = await import(${JSON.stringify(src("runners/bubblewrap.ts"))});
    const { sandboxPolicy } = await import(${JSON.stringify(src("sandbox/policy.ts"))});
    const runner = ${options.runner === "bwrap" ? "new BubblewrapRunner()" : `new LocalRunner({ pidNamespace: ${options.pidNamespace ?? true}${options.spawner === undefined ? "" : `, spawner: ${options.spawner}`} })`};
    const request = {
      cwd: ${JSON.stringify(options.cwd)},
      writableRoots: [${JSON.stringify(options.cwd)}],
      timeoutMs: 120000,
    };
    if (${options.warmFirst === true}) {
      await (await runner.start({ ...request, command: "true" }, sandboxPolicy())).done;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    const running = await runner.start({
      command: ${JSON.stringify(options.command)},
      cwd: ${JSON.stringify(options.cwd)},
      writableRoots: [${JSON.stringify(options.cwd)}],
      timeoutMs: 120000,
      onOutput: (stream, chunk) => (stream === "stdout" ? process.stdout : process.stderr).write(chunk),
    }, sandboxPolicy());
    const exit = await running.done;
    process.stderr.write("exit " + JSON.stringify(exit) + "\\n");
  `;
  const node = [
    process.execPath,
    "--no-warnings",
    "--experimental-transform-types",
    "--import",
    `data:text/javascript,${encodeURIComponent(REGISTER)}`,
    "--input-type=module",
    "-e",
    script,
    "--",
    ...(options.argv ?? []),
  ];
  const [file, ...args] = options.throughShell
    ? ["/bin/sh", "-c", '"$@"; true', "sh", ...node]
    : options.inheritedFile
      ? ["/bin/bash", "-c", 'exec 100<"$0"; exec "$@"', options.inheritedFile, ...node]
      : (node as [string, ...string[]]);
  return spawn(file as string, args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Everything the process writes until `until` matches on stdout (or it exits). A match on stderr (the
 * agent's `exit …` line, written just before it ends) waits for stdout to end as well, for 5 s at most:
 * the two are separate pipes, and what the command printed can arrive after the line that says it ended.
 */
export function readUntil(child: ChildProcess, until: RegExp): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let stdoutEnded = child.stdout === null;
    let grace: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(grace);
      resolve({ stdout, stderr });
    };
    const check = () => {
      if (until.test(stdout) || (until.test(stderr) && stdoutEnded)) done();
      // A process that goes on after the line (the failure some tests look for) is waited for 5 s at most.
      else if (until.test(stderr)) grace ??= setTimeout(done, 5_000);
    };
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      check();
    });
    child.stdout?.on("end", () => {
      stdoutEnded = true;
      check();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      check();
    });
    child.on("close", done);
  });
}
