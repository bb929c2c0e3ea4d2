import type { RunEvent } from "@bridle/core";
import { oneLine } from "./display-text.js";

/** Arguments that say what a call is about, in the order they are looked for. */
const SUBJECT =
  /"(?:path|file_path|filePath|command|cmd|pattern|url|query|name)"\s*:\s*"((?:[^"\\]|\\.){1,400})"/;

interface StreamedCall {
  name?: string;
  args: string;
  shown: boolean;
}

/**
 * What a terminal shows of a tool call while the model is still writing it (`tool_call_delta` events):
 * one line per call, `… edit_file src/cart.js`, as soon as its name and the argument that says what it is
 * about have streamed, long before the call is complete and recorded. The line is safe to print: its
 * control characters are escaped.
 */
export class StreamedCalls {
  readonly #calls = new Map<number, StreamedCall>();

  /** The line to show for this event, if it completes one. */
  observe(event: RunEvent): string | undefined {
    if (event.type === "model_request") this.#calls.clear();
    if (event.type !== "tool_call_delta") return undefined;
    let call = this.#calls.get(event.index);
    if (!call) {
      call = { args: "", shown: false };
      this.#calls.set(event.index, call);
    }
    if (event.toolName) call.name = event.toolName;
    call.args += event.argumentsDelta;
    if (call.shown || !call.name) return undefined;
    const subject = subjectOf(call.args);
    // A call with no such argument is shown once a little of it has streamed.
    if (subject === undefined && call.args.length < 200 && !event.clipped) return undefined;
    call.shown = true;
    return `… ${oneLine(call.name, 80)}${subject === undefined ? "" : ` ${subject}`}`;
  }
}

function subjectOf(partial: string): string | undefined {
  const match = SUBJECT.exec(partial);
  if (!match?.[1]) return undefined;
  let text: string;
  try {
    text = JSON.parse(`"${match[1]}"`) as string;
  } catch {
    text = match[1];
  }
  return oneLine(text, 80);
}
