import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Starting a process from the test process blocks its one thread for the fork of a large process (~20 ms
// on a busy machine, and slots cannot overlap it). A small bash per slot starts the commands instead: the
// test process only writes a request to a pipe. The server has exactly the commands' environment; with
// job control on, each command is a process group of its own (so a timeout or its leftovers are killed as
// a group), with stdin from /dev/null and both streams into one file that is read back up to a cap.
const SERVER = String.raw`
set -m
out_dir=$OUT_DIR
unset OUT_DIR
while IFS= read -r -d '' id && IFS= read -r -d '' cwd && IFS= read -r -d '' cmd; do
  ( cd -- "$cwd" 2>/dev/null || exit 126
    ulimit -f 8192
    exec /bin/bash -c "$cmd" ) </dev/null >"$out_dir/$id" 2>&1 &
  pid=$!
  printf 'start %s %s\n' "$id" "$pid"
  wait "$pid"
  printf 'done %s %s\n' "$id" "$?"
done
`;

const OUTPUT_CAP = 1 << 20;

export interface Launched {
  readonly output: string;
  readonly exit: number | string;
}

/** One slot's command server: runs one command at a time, as `bash -c`, and hands back what it printed. */
export class Launcher {
  readonly #env: Readonly<Record<string, string>>;
  readonly #outDir: string;
  readonly #killAfterMs: number;
  #server: ChildProcessWithoutNullStreams | undefined;
  #buffer = "";
  #next = 0;
  #waiting: { id: string; pid?: number; timer?: NodeJS.Timeout; resolve: (exit: string) => void } | undefined;

  constructor(env: Readonly<Record<string, string>>, killAfterMs: number) {
    this.#env = env;
    this.#outDir = mkdtempSync(join(tmpdir(), "bridle-attack-out-"));
    this.#killAfterMs = killAfterMs;
  }

  run(command: string, cwd: string): Promise<Launched> {
    if (this.#waiting) throw new Error("one command at a time per launcher");
    const id = String(this.#next++);
    const server = this.#start();
    return new Promise<string>((resolve) => {
      this.#waiting = { id, resolve };
      server.stdin.write(`${id}\0${cwd}\0${command}\0`);
    }).then((exit) => {
      const path = join(this.#outDir, id);
      const output = readCapped(path);
      rmSync(path, { force: true });
      return { output, exit: /^\d+$/.test(exit) ? Number(exit) : exit };
    });
  }

  close(): void {
    this.#server?.stdin.end();
    this.#server?.kill("SIGKILL");
    this.#server = undefined;
    rmSync(this.#outDir, { recursive: true, force: true });
  }

  /** The server, started again if a command ended it (killed its parent, say): the next command gets a new one. */
  #start(): ChildProcessWithoutNullStreams {
    if (this.#server) return this.#server;
    const server = spawn("/bin/bash", ["-c", SERVER], {
      env: { ...this.#env, OUT_DIR: this.#outDir },
      stdio: ["pipe", "pipe", "pipe"],
    });
    server.stdout.setEncoding("utf8");
    server.stdout.on("data", (text: string) => this.#read(text));
    server.stderr.resume();
    server.stdin.on("error", () => {});
    server.on("exit", () => {
      if (this.#server === server) this.#server = undefined;
      this.#buffer = "";
      const waiting = this.#waiting;
      if (!waiting) return;
      clearTimeout(waiting.timer);
      killGroup(waiting.pid);
      this.#waiting = undefined;
      waiting.resolve("the launcher's shell exited");
    });
    this.#server = server;
    return server;
  }

  #read(text: string): void {
    this.#buffer += text;
    for (let end = this.#buffer.indexOf("\n"); end >= 0; end = this.#buffer.indexOf("\n")) {
      const [event, id, value] = this.#buffer.slice(0, end).split(" ");
      this.#buffer = this.#buffer.slice(end + 1);
      const waiting = this.#waiting;
      if (!waiting || waiting.id !== id) continue;
      if (event === "start") {
        waiting.pid = Number(value);
        // A safety net for a command that hangs (a reader given a link to /); never an assertion.
        waiting.timer = setTimeout(() => killGroup(waiting.pid), this.#killAfterMs);
      } else if (event === "done") {
        clearTimeout(waiting.timer);
        // What it left running in the background must not outlive it into the next sequence.
        killGroup(waiting.pid);
        this.#waiting = undefined;
        waiting.resolve(value ?? "unknown");
      }
    }
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function readCapped(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "";
  }
  try {
    const buffer = Buffer.alloc(OUTPUT_CAP);
    const length = readSync(fd, buffer, 0, OUTPUT_CAP, 0);
    return buffer.toString("latin1", 0, length);
  } finally {
    closeSync(fd);
  }
}
