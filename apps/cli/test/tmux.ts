import { execFileSync } from "node:child_process";
import { CLI, NODE_FLAGS } from "./cli-harness.js";

/**
 * The built CLI in a real terminal (a detached tmux session), driven the way a person drives it: typing
 * keys and reading the screen. Every start gets a tmux server of its own (its own socket): test files run in
 * parallel, and a client that reaches a server still shutting down (a shared one whose last session just
 * ended, or this instance's previous one after kill()) fails with "server exited unexpectedly".
 */
export class TmuxCli {
  readonly #name: string;
  #starts = 0;
  #socket: string;

  constructor(name: string) {
    this.#name = `${name}-${process.pid}`;
    this.#socket = this.#name;
  }

  /** Starts `bridle ARGS` with these environment variables; the pane stays open after it exits. */
  start(args: readonly string[], env: Readonly<Record<string, string>>): void {
    const command = [process.execPath, ...NODE_FLAGS, CLI, ...args].map((part) => `'${part}'`).join(" ");
    this.#socket = `${this.#name}-${++this.#starts}`;
    this.#tmux(
      "new-session",
      "-d",
      "-s",
      this.#name,
      "-x",
      "160",
      "-y",
      "50",
      ...Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]),
      `${command}; sleep 30`,
    );
  }

  screen(): string {
    return this.#tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", this.#name);
  }

  /** The screen with its colours, as the escape sequences tmux would draw them with. */
  colouredScreen(): string {
    return this.#tmux("capture-pane", "-p", "-e", "-J", "-S", "-200", "-t", this.#name);
  }

  /** Only what the terminal shows now, without the lines scrolled into its history. */
  visibleScreen(): string {
    return this.#tmux("capture-pane", "-p", "-J", "-t", this.#name);
  }

  /** The pane's title, which an OSC 0 or 2 sequence written to the terminal would set. */
  title(): string {
    return this.#tmux("display-message", "-p", "-t", this.#name, "#{pane_title}").trim();
  }

  async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      last = this.screen();
      if (pattern.test(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`screen never showed ${pattern}; it shows:\n${last}`);
  }

  #tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.#socket, ...args], { encoding: "utf8" });
  }

  keys(...keys: string[]): void {
    this.#tmux("send-keys", "-t", this.#name, ...keys);
  }

  kill(): void {
    try {
      this.#tmux("kill-server");
    } catch {
      // already gone
    }
  }
}
