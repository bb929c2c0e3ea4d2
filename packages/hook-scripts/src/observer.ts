import { type EventObserver, type RunEvent, textOf } from "@bridle/core";
import type { ScriptContext } from "./script-context.js";

/**
 * Notification (a call waits for the user's approval) and PostCompact (the transcript was compacted) are
 * facts the run already states as events: an observer runs their hooks, without holding the run up. It
 * also writes the Claude Code-shaped transcripts, when they are kept.
 */
export class ScriptObserver implements EventObserver {
  readonly name = "hook-scripts";
  readonly #scripts: ScriptContext;
  readonly #running = new Set<Promise<unknown>>();

  constructor(scripts: ScriptContext) {
    this.#scripts = scripts;
  }

  write(event: RunEvent): void {
    const scripts = this.#scripts;
    // Before any hook of a later event runs: the transcript is written as the events arrive.
    scripts.transcripts?.write(event);
    if (event.type === "approval_requested" && scripts.runner.has("Notification")) {
      this.#track(
        scripts.runner
          .run("Notification", "permission_prompt", {
            ...scripts.common("Notification", event),
            message: `Bridle needs your permission to use ${event.toolCall.name}`,
            notification_type: "permission_prompt",
          })
          .then((results) => scripts.settle("Notification", results)),
      );
    }
    if (event.type === "compaction" && scripts.runner.has("PostCompact")) {
      // A run's own compaction says why (threshold, overflow); a person's /compact says nothing.
      const trigger = event.reason === undefined ? "manual" : "auto";
      this.#track(
        scripts.runner
          .run("PostCompact", trigger, {
            ...scripts.common("PostCompact", event),
            trigger,
            compact_summary:
              event.summary.role === "system" ? event.summary.content : textOf(event.summary.content),
          })
          .then((results) => scripts.settle("PostCompact", results)),
      );
    }
  }

  /** Resolves once the hooks started so far have finished (await it before the process exits). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  #track(work: Promise<unknown>): void {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
  }
}
