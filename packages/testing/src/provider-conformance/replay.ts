import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Model, userText } from "@bridle/core";
import { recordedReplies } from "../fake-servers/recorded.js";
import { FakeProviderServer, type RecordedHttpRequest } from "../fake-servers/server.js";
import type { FakeWireFormat } from "../fake-servers/turn.js";
import { collectModelEvents, type ModelRun } from "./model-run.js";

export interface ReplayResult {
  /** One run per response in the recording, in order. */
  readonly runs: readonly ModelRun[];
  readonly requests: readonly RecordedHttpRequest[];
}

/**
 * Serves a recorded stream file (`dir/file`) from a fake server and streams each of its responses through
 * a model built for that server, one request per response. Every run is checked for the Model contract's
 * single terminal event.
 */
export async function replayRecordedStream(options: {
  readonly dir: string;
  readonly file: string;
  readonly format: FakeWireFormat;
  readonly createModel: (baseUrl: string) => Model;
}): Promise<ReplayResult> {
  const text = await readFile(join(options.dir, options.file), "utf8");
  const replies = recordedReplies(text, options.format.name);
  const server = await FakeProviderServer.start();
  try {
    server.enqueue(...replies.map((events) => ({ kind: "stream" as const, events })));
    const model = options.createModel(options.format.baseUrl(server.url));
    const runs: ModelRun[] = [];
    for (let i = 0; i < replies.length; i++) {
      runs.push(
        await collectModelEvents(model, {
          messages: [userText(`replay ${options.file} #${i}`)],
          tools: [],
          signal: AbortSignal.timeout(15_000),
        }),
      );
    }
    return { runs, requests: [...server.requests] };
  } finally {
    await server.close();
  }
}
