import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent, RunStream } from "@bridle/core";

/**
 * A fresh folder under the OS temp dir, and a function that removes it. The removal retries a few times: a
 * process a test started may still be writing in it as it exits (Node's compile cache is flushed at exit),
 * which makes a single recursive removal fail with ENOTEMPTY.
 */
export async function tempWorkspace(
  prefix = "bridle-",
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }) };
}

/** Every event of a run stream, in order. */
export async function collectEvents(stream: RunStream): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
