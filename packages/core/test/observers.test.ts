import { Harness, type RunEvent, type RunStream } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { noopTool } from "./helpers.js";

const script = () =>
  new ScriptedModel([{ toolCalls: [{ id: "n", name: "noop", arguments: {} }] }, { text: "done" }]);

describe("one run, several sinks", () => {
  it("the record, every observer and the stream see every event in sequence order, observers in the order given", async () => {
    const order: string[] = [];
    const record: RunEvent[] = [];
    const tracer: RunEvent[] = [];
    const ui: RunEvent[] = [];
    const stream = new Harness({ model: script(), tools: [noopTool] }).stream({
      prompt: "go",
      sink: {
        write: (event) => {
          order.push(`record:${event.seq}`);
          record.push(event);
        },
      },
      observers: [
        {
          name: "tracer",
          write: (event) => {
            order.push(`tracer:${event.seq}`);
            tracer.push(event);
          },
        },
        {
          name: "ui",
          write: async (event) => {
            order.push(`ui:${event.seq}`);
            ui.push(event);
          },
        },
      ],
    });
    const consumed: RunEvent[] = [];
    for await (const event of stream) consumed.push(event);
    expect((await stream.result).stopReason).toBe("completed");
    const seqs = consumed.map((event) => event.seq);
    expect(seqs).toEqual([...seqs.keys()]);
    for (const seen of [record, tracer, ui]) expect(seen.map((event) => event.seq)).toEqual(seqs);
    // Per event, observers are called in the order given.
    const at = (label: string) => order.indexOf(label);
    for (const seq of seqs) expect(at(`tracer:${seq}`)).toBeLessThan(at(`ui:${seq}`));
  });

  it("a tracer or UI that throws or rejects never ends the run, and each is reported once", async () => {
    const stream = new Harness({ model: script(), tools: [noopTool] }).stream({
      prompt: "go",
      observers: [
        {
          name: "tracer",
          write: () => {
            throw new Error("exporter down");
          },
        },
        { write: async () => Promise.reject(new Error("socket closed")) },
      ],
    });
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(result.finalText).toBe("done");
    const failures = events.filter((event) => event.type === "observer_failed");
    expect(failures).toHaveLength(2);
    expect(failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ observer: "tracer", message: "exporter down" }),
        expect.objectContaining({ observer: "observer 1", message: "socket closed" }),
      ]),
    );
    // The report never lands between an event and its delivery: the stream stays in sequence order.
    expect(events.map((event) => event.seq)).toEqual([...events.keys()]);
    expect(events.at(-1)?.type).toBe("run_completed");
  });

  it("a record that fails ends the run as store_error while a failing observer beside it does not", async () => {
    let writes = 0;
    const stream = new Harness({ model: script(), tools: [noopTool] }).stream({
      prompt: "go",
      sink: {
        write: async () => {
          writes++;
          if (writes > 2) throw new Error("disk full");
        },
      },
      observers: [
        {
          write: () => {
            throw new Error("tracer down");
          },
        },
      ],
    });
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(result.stopReason).toBe("store_error");
    expect(result.error?.message).toContain("disk full");
    expect(events.filter((event) => event.type === "observer_failed")).toHaveLength(1);
  });

  it("an observer that queues a message from inside its callback does not reorder the stream", async () => {
    let stream: RunStream | undefined;
    const seenByUi: number[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ id: "n", name: "noop", arguments: {} }] },
      { text: "first answer" },
      { text: "second answer" },
    ]);
    stream = new Harness({ model, tools: [noopTool] }).stream({
      prompt: "go",
      observers: [
        {
          name: "ui",
          write: (event) => {
            seenByUi.push(event.seq);
            // A person typing the moment the first call is shown.
            if (event.type === "tool_call_requested") stream?.followUp("one more thing");
            if (event.type === "run_completed") stream?.steer("too late");
          },
        },
      ],
    });
    const consumed: RunEvent[] = [];
    for await (const event of stream) consumed.push(event);
    const result = await stream.result;
    expect(result.finalText).toBe("second answer");
    const seqs = consumed.map((event) => event.seq);
    expect(seqs).toEqual([...seqs.keys()]);
    expect(seenByUi).toEqual(seqs);
    const queued = consumed.findIndex((event) => event.type === "user_message_queued");
    expect(consumed[queued - 1]?.type).toBe("tool_call_requested");
    // Steering after the end threw inside the observer: reported nowhere, since the run had ended.
    expect(consumed.at(-1)?.type).toBe("run_completed");
  });
});
