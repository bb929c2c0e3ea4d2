// Each model request of a durable run is one checkpointed step: the request runs to its end inside the
// step, and the events it produced are replayed from the checkpoint on any later execution of the run.
import type { AssistantMessage, Model, ModelEvent, ModelRequest } from "@bridle/core";
import type { DurableContext } from "./durable-context.js";

/**
 * `model`, with every `stream` call a step named `model:<n>` (after `prefix`: a child run's steps are
 * named under the call that started it). Deltas arrive when the request is done
 * (a live stream could not be replayed identically). Tool call ids missing or repeated in a turn are
 * made unique here, deterministically, so they are the same on every execution: they name the steps.
 */
export function durableModel(model: Model, context: DurableContext, prefix = ""): Model {
  let requests = 0;
  const wrapped: Model = Object.create(model);
  Object.defineProperty(wrapped, "stream", {
    value: (request: ModelRequest): AsyncIterable<ModelEvent> => {
      const index = requests++;
      return replay(() =>
        context.step(`${prefix}model:${index}`, async () => normalized(await collect(model, request), index)),
      );
    },
  });
  return wrapped;
}

async function collect(model: Model, request: ModelRequest): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of model.stream(request)) events.push(event);
  } catch (error) {
    // Adapters must not throw; one that does is a provider failure like any other.
    events.push({
      type: "error",
      error: { code: "unknown", message: `the model adapter threw: ${String(error)}`, retryable: false },
    });
  }
  return events;
}

async function* replay(events: () => Promise<readonly ModelEvent[]>): AsyncIterable<ModelEvent> {
  yield* await events();
}

function normalized(events: ModelEvent[], request: number): ModelEvent[] {
  return events.map((event) =>
    event.type === "done" ? { ...event, message: uniqueCallIds(event.message, request) } : event,
  );
}

function uniqueCallIds(message: AssistantMessage, request: number): AssistantMessage {
  const seen = new Set<string>();
  let changed = false;
  const content = message.content.map((part, index) => {
    if (part.type !== "tool_call") return part;
    let id = part.id;
    if (!id || seen.has(id)) {
      id = `call_${request}_${index}`;
      changed = true;
    }
    seen.add(id);
    return id === part.id ? part : { ...part, id };
  });
  return changed ? { ...message, content } : message;
}
