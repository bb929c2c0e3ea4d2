import {
  type Message,
  type QueuedMessage,
  type RunEvent,
  type SessionStore,
  sessionTranscript,
  undeliveredMessages,
} from "@bridle/core";
import { CliError } from "../cli-error.js";

export interface OpenedSession {
  readonly id: string;
  /** The transcript so far, rebuilt from the stored events. */
  readonly history: readonly Message[];
  /** Messages typed into an earlier run that it never delivered (it ended first): the next run gets them. */
  readonly queued?: readonly QueuedMessage[];
}

/**
 * --resume ID continues a stored session (it must exist); --session ID records into that session,
 * continuing it if it exists; neither starts a new one.
 */
export async function openSession(
  store: SessionStore,
  options: { readonly session?: string; readonly resume?: string; readonly title?: string },
): Promise<OpenedSession> {
  if (options.session && options.resume && options.session !== options.resume) {
    throw new CliError("--session and --resume name different sessions; give one of them", 2);
  }
  const id = options.resume ?? options.session;
  if (id) {
    if (await store.get(id)) {
      return { id, history: await sessionTranscript(store, id), queued: await undelivered(store, id) };
    }
    if (options.resume) throw new CliError(`no session "${id}" to resume (see bridle sessions list)`, 1);
    const created = await store.createSession({ id, ...(options.title ? { title: options.title } : {}) });
    return { id: created.id, history: [] };
  }
  const created = await store.createSession(options.title ? { title: options.title } : {});
  return { id: created.id, history: [] };
}

async function undelivered(store: SessionStore, id: string): Promise<readonly QueuedMessage[]> {
  const events: RunEvent[] = [];
  for await (const { event } of store.read(id)) {
    if (event.type === "user_message_queued" || event.type === "user_message_delivered") events.push(event);
  }
  return undeliveredMessages(events);
}
