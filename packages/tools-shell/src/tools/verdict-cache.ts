import type { Workspace } from "@bridle/core";
import type { PolicyResult } from "@bridle/shell-policy";

// Verdicts judged since the last command was admitted, at most this many (a model asking about many
// commands that never run must not grow it without bound).
const MAX_ENTRIES = 256;

/**
 * The policy's verdicts keyed by the exact command text, the folder it starts in (resolved) and the
 * workspace, so approval and execution of one call judge once, whatever tool asks (bash, skill_run,
 * run_check) and however it builds its arguments. One cache per environment, so per policy and its
 * settings. A verdict depends on the file system (links, repositories, what exists), and a command that
 * runs may change it: the cache is emptied whenever a command is admitted to run, so a verdict is never
 * carried past the next command.
 */
export class VerdictCache {
  readonly #entries = new Map<string, Promise<PolicyResult | undefined>>();
  readonly #workspaces = new WeakMap<Workspace, number>();
  #nextWorkspace = 0;

  get(
    workspace: Workspace,
    folder: string,
    command: string,
    judge: () => Promise<PolicyResult | undefined>,
  ): Promise<PolicyResult | undefined> {
    const key = JSON.stringify([this.#workspaceId(workspace), folder, command]);
    let verdict = this.#entries.get(key);
    if (!verdict) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      verdict = judge();
      this.#entries.set(key, verdict);
      // A failed judgement is not remembered: the next ask tries again.
      verdict.catch(() => {
        if (this.#entries.get(key) === verdict) this.#entries.delete(key);
      });
    }
    return verdict;
  }

  /** A command is about to run: what was judged before it may no longer hold. */
  clear(): void {
    this.#entries.clear();
  }

  #workspaceId(workspace: Workspace): number {
    let id = this.#workspaces.get(workspace);
    if (id === undefined) {
      id = this.#nextWorkspace++;
      this.#workspaces.set(workspace, id);
    }
    return id;
  }
}
