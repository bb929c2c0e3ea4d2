import { boundedWait } from "./in-flight.js";
import { descendantPids, stopProcesses } from "./processes.js";
import { CLOSE_STEP_MS, type OpenedClient } from "./transport.js";

/** Closes the client and, for a stdio server, stops any process the server left behind. */
export async function shutDown(live: OpenedClient & { broken?: string }): Promise<void> {
  const strays = live.pid === undefined ? [] : await descendantPids(live.pid);
  const transport = live.transport as { terminateSession?: () => Promise<void> };
  // A session whose transport broke is not ended politely: it is gone.
  if (live.kind === "streamable-http" && transport.terminateSession && live.broken === undefined) {
    await boundedWait(transport.terminateSession(), CLOSE_STEP_MS);
  }
  live.client.onclose = undefined;
  live.client.onerror = undefined;
  await boundedWait(live.client.close(), CLOSE_STEP_MS);
  // The client's close was given CLOSE_STEP_MS: a server still running after it is stopped here, with
  // whatever it started.
  await stopProcesses(live.pid === undefined ? strays : [live.pid, ...strays], 2_000);
}
