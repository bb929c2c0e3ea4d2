import { describe, expect, it } from "vitest";
import { deepFreeze, type EncodedEntries, requestJson } from "../src/request-json.js";

// Random JSON-like values, with what JSON.stringify treats specially: undefined (left out of objects,
// null in arrays), functions, -0, escapes, astral and lone surrogates, keys that look like numbers.
function randomValue(seed: { n: number }, depth: number): unknown {
  const next = () => {
    seed.n = (seed.n * 1103515245 + 12345) % 2147483648;
    return seed.n / 2147483648;
  };
  const pick = Math.floor(next() * (depth > 3 ? 7 : 9));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -0, 1.5, -7, 1e21, Number.NaN][Math.floor(next() * 6)];
    case 3:
      return ["plain", 'quote " and \\ back', "line\nbreak\ttab", "\u0001\u001f", "😀 é", "\ud800 lone"][
        Math.floor(next() * 6)
      ];
    case 4:
      return undefined;
    case 5:
      return () => 1;
    case 6:
      return "text";
    case 7:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(seed, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (const key of ["b", "a", "10", "2", "content", "tool_calls"].slice(0, Math.floor(next() * 6)))
        object[key] = randomValue(seed, depth + 1);
      return object;
    }
  }
}

describe("requestJson", () => {
  it("gives JSON.stringify's text for 500 random bodies, with and without frozen entries", () => {
    for (let n = 1; n <= 500; n++) {
      const seed = { n };
      const messages = Array.from({ length: n % 7 }, () => randomValue(seed, 0));
      const body = { model: "m", before: randomValue(seed, 1), messages, stream: true, after: undefined };
      const encoded: EncodedEntries = new WeakMap();
      expect(requestJson(body, "messages", encoded)).toBe(JSON.stringify(body));
      for (const entry of messages) deepFreeze(entry);
      expect(requestJson(body, "messages", encoded)).toBe(JSON.stringify(body));
      // Again, now from the kept texts.
      expect(requestJson(body, "messages", encoded)).toBe(JSON.stringify(body));
    }
  });

  it("keeps the key order, and the list's place in it", () => {
    const body = { stream: true, messages: [deepFreeze({ role: "user", content: "hi" })], model: "m" };
    expect(requestJson(body, "messages", new WeakMap())).toBe(
      '{"stream":true,"messages":[{"role":"user","content":"hi"}],"model":"m"}',
    );
  });

  it("encodes a frozen entry once and reuses its text; an entry not frozen is encoded every time", () => {
    const encoded: EncodedEntries = new WeakMap();
    const kept = deepFreeze({ role: "tool", tool_call_id: "c1", content: "out" });
    const open = { role: "user", content: "first" };
    const body = { messages: [kept, open] };
    expect(requestJson(body, "messages", encoded)).toBe(JSON.stringify(body));
    expect(encoded.get(kept)).toBe(JSON.stringify(kept));
    expect(encoded.has(open)).toBe(false);
    open.content = "changed";
    expect(requestJson(body, "messages", encoded)).toContain('"content":"changed"');
    // The kept text is what is sent: proof that the frozen entry is not encoded again.
    encoded.set(kept, '{"kept":true}');
    expect(requestJson(body, "messages", encoded)).toBe(
      '{"messages":[{"kept":true},{"role":"user","content":"changed"}]}',
    );
  });

  it("encodes the whole body as JSON.stringify does when the key holds no list", () => {
    const body = { model: "m", messages: "not a list" };
    expect(requestJson(body, "messages", new WeakMap())).toBe(JSON.stringify(body));
    expect(requestJson({ model: "m" }, "input", new WeakMap())).toBe('{"model":"m"}');
  });
});

describe("deepFreeze", () => {
  it("freezes every object and array inside, also under an object someone froze shallowly", () => {
    const inner = { arguments: '{"a":1}' };
    const value = Object.freeze({ tool_calls: [{ function: inner }] });
    deepFreeze(value);
    expect(Object.isFrozen(value.tool_calls)).toBe(true);
    expect(Object.isFrozen(value.tool_calls[0])).toBe(true);
    expect(Object.isFrozen(inner)).toBe(true);
    expect(() => {
      (inner as { arguments: string }).arguments = "changed";
    }).toThrow(TypeError);
  });
});
