import { execFileSync } from "node:child_process";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixture, jsonl } from "./helpers.js";

const log = jsonl([
  {
    ts: "2026-01-01T10:00:00Z",
    level: "info",
    msg: "started",
    req: { id: 1, ms: 12, user: { name: "ann" } },
  },
  {
    ts: "2026-01-01T10:00:05Z",
    level: "error",
    msg: "disk full on /var",
    req: { id: 2, ms: 950, user: { name: "bob" } },
  },
  {
    ts: "2026-01-01T10:01:00Z",
    level: "warn",
    msg: "slow query",
    req: { id: 3, ms: 480, user: { name: "ann" } },
  },
  {
    ts: "2026-01-02T09:00:00Z",
    level: "error",
    msg: "Timeout talking to db",
    req: { id: 4, ms: 30000, user: { name: "cy" } },
    tags: ["db", "retry"],
  },
]);

describe("filters on dotted paths", () => {
  it("equals, contains, regex and ranges each select the right rows, with their line numbers", async () => {
    const f = await fixture();
    await f.files({ "logs/app.jsonl": log });
    const lines = async (filters: unknown[], extra: Record<string, unknown> = {}) =>
      (await f.search({ path: "logs/app.jsonl", filters, ...extra })).details.rows.map((row) => row.line);
    expect(await lines([{ field: "level", equals: "error" }])).toEqual([2, 4]);
    expect(await lines([{ field: "req.user.name", equals: "ann" }])).toEqual([1, 3]);
    expect(await lines([{ field: "req.id", equals: 3 }])).toEqual([3]);
    expect(await lines([{ field: "msg", contains: "query" }])).toEqual([3]);
    expect(await lines([{ field: "msg", contains: "timeout" }])).toEqual([]);
    expect(await lines([{ field: "msg", contains: "timeout" }], { ignore_case: true })).toEqual([4]);
    expect(await lines([{ field: "msg", regex: "^(disk|slow) " }])).toEqual([2, 3]);
    expect(await lines([{ field: "req.ms", min: 400, max: 1000 }])).toEqual([2, 3]);
    expect(await lines([{ field: "req.ms", min: 1000 }])).toEqual([4]);
    expect(await lines([{ field: "ts", min: "2026-01-01T10:00:01Z", max: "2026-01-01T23:59:59Z" }])).toEqual([
      2, 3,
    ]);
    expect(await lines([{ field: "tags.1", equals: "retry" }])).toEqual([4]);
    // Every filter holds: AND.
    expect(
      await lines([
        { field: "level", equals: "error" },
        { field: "req.ms", max: 1000 },
      ]),
    ).toEqual([2]);
    // A range of numbers never matches text, nor a missing field.
    expect(await lines([{ field: "msg", min: 0 }])).toEqual([]);
    expect(await lines([{ field: "nope.deeper", equals: "x" }])).toEqual([]);
  });

  it("never reads through the prototype: constructor and __proto__ are only own fields", async () => {
    const f = await fixture();
    await f.files({ "a.jsonl": '{"a":1}\n{"__proto__":{"x":"y"},"constructor":"c"}\n' });
    const rows = async (field: string, value: string) =>
      (await f.search({ path: "a.jsonl", filters: [{ field, equals: value }] })).details.rows.map(
        (r) => r.line,
      );
    expect(await rows("__proto__.x", "y")).toEqual([2]);
    expect(await rows("constructor", "c")).toEqual([2]);
    expect(
      (await f.search({ path: "a.jsonl", filters: [{ field: "constructor.name", equals: "Object" }] }))
        .details.rows,
    ).toEqual([]);
  });

  it("finds rows whose writer escaped what the filter names (\\u00e9, \\/): the prefilter is only ever verbatim text", async () => {
    const f = await fixture();
    // Python's json.dumps escapes every non-ASCII character; PHP escapes slashes.
    await f.files({
      "py.jsonl": '{"city":"caf\\u00e9 \\u2603","path":"a\\/b\\/c"}\n{"city":"cafe","path":"a/b"}\n',
    });
    const lines = async (filter: Record<string, unknown>) =>
      (await f.search({ path: "py.jsonl", filters: [filter] })).details.rows.map((row) => row.line);
    expect(await lines({ field: "city", equals: "café ☃" })).toEqual([1]);
    expect(await lines({ field: "city", contains: "☃" })).toEqual([1]);
    expect(await lines({ field: "path", equals: "a/b/c" })).toEqual([1]);
    expect(await lines({ field: "path", contains: "b/c" })).toEqual([1]);
    // Go's encoder writes <, > and & as \u003c, \u003e and \u0026.
    await f.files({ "go.jsonl": '{"html":"\\u003cb\\u003eR\\u0026D\\u003c/b\\u003e"}\n{"html":"plain"}\n' });
    const go = await f.search({ path: "go.jsonl", filters: [{ field: "html", equals: "<b>R&D</b>" }] });
    expect(go.details.rows.map((row) => row.line)).toEqual([1]);
    expect(
      (await f.search({ path: "go.jsonl", filters: [{ field: "html", contains: "R&D<" }] })).details.rows,
    ).toHaveLength(1);
  });
});

describe("projection and snippets", () => {
  it("shows only the fields asked for, in the order asked", async () => {
    const f = await fixture();
    await f.files({ "app.jsonl": log });
    const { content } = await f.search({
      path: "app.jsonl",
      filters: [{ field: "level", equals: "error" }],
      fields: ["req.user.name", "msg", "missing.field"],
    });
    expect(content.split("\n").slice(0, 2)).toEqual([
      'app.jsonl:2 {"req.user.name":"bob","msg":"disk full on /var"}',
      'app.jsonl:4 {"req.user.name":"cy","msg":"Timeout talking to db"}',
    ]);
  });

  it("cuts a long string to a snippet around where contains matched, and a wide row to its bound", async () => {
    const f = await fixture({ snippetChars: 40, rowChars: 300 });
    const body = `${"a".repeat(5_000)} NEEDLE here ${"b".repeat(5_000)}`;
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i]));
    await f.files({
      "big.jsonl": jsonl([
        { id: 1, body },
        { id: 2, ...wide },
      ]),
    });
    const hit = await f.search({ path: "big.jsonl", filters: [{ field: "body", contains: "NEEDLE" }] });
    const row = hit.details.rows[0]?.text ?? "";
    expect(row).toContain("NEEDLE here");
    expect(row).toMatch(/^\{"id":1,"body":"…\[\d+\] a+ NEEDLE here b+ …\[\d+ more\]"\}$/);
    expect(row.length).toBeLessThan(120);
    const whole = await f.search({ path: "big.jsonl", filters: [{ field: "id", equals: 2 }] });
    const text = whole.details.rows[0]?.text ?? "";
    expect(text.length).toBeLessThan(340);
    expect(text).toMatch(/ …\[\d+ more characters\]$/);
  });
});

describe("bad lines and big files", () => {
  it("counts malformed lines and names where they are, and goes on", async () => {
    const f = await fixture();
    await f.files({
      "mixed.jsonl": '{"level":"error","n":1}\n{"level":"error", broken\n\n[1,2\n{"level":"error","n":2}\r\n',
    });
    const { details, content } = await f.search({ path: "mixed.jsonl" });
    expect(details.rows.map((row) => row.line)).toEqual([1, 5]);
    expect(details.malformed).toBe(2);
    expect(details.skippedAt).toEqual(["mixed.jsonl:2", "mixed.jsonl:4"]);
    expect(content).toContain("[Skipped 2 malformed (not JSON) lines, e.g. mixed.jsonl:2, mixed.jsonl:4.]");
  });

  it("names a line over the size limit without reading it, and still returns the rows around it", async () => {
    const f = await fixture({ maxLineBytes: 4_096 });
    await f.files({
      "huge.jsonl": jsonl([
        { level: "error", n: 1 },
        { level: "error", blob: "x".repeat(100_000) },
        { level: "error", n: 3 },
      ]),
    });
    const { details, content } = await f.search({
      path: "huge.jsonl",
      filters: [{ field: "level", equals: "error" }],
    });
    expect(details.rows.map((row) => row.line)).toEqual([1, 3]);
    expect(details.oversized).toBe(1);
    expect(details.skippedAt).toEqual(["huge.jsonl:2"]);
    expect(content).toContain("1 over 4 KiB");
    expect(content.length).toBeLessThan(1_000);
  });

  it("stops at the limit and reads on from after_line until every row was seen once", async () => {
    const f = await fixture();
    const rows = Array.from({ length: 1_000 }, (_, i) => ({ i, kind: i % 7 === 0 ? "seven" : "other" }));
    await f.files({ "many.jsonl": jsonl(rows) });
    const seen: number[] = [];
    let after: number | undefined;
    for (let round = 0; round < 20; round++) {
      const { details, content } = await f.search({
        path: "many.jsonl",
        filters: [{ field: "kind", equals: "seven" }],
        limit: 50,
        ...(after === undefined ? {} : { after_line: after }),
      });
      seen.push(...details.rows.map((row) => row.line));
      if (!details.truncated) break;
      after = details.rows.at(-1)?.line;
      expect(content).toContain(`Read on with after_line=${after}.`);
    }
    expect(seen).toEqual(rows.filter((row) => row.kind === "seven").map((row) => row.i + 1));
  });

  it("stops ripgrep and settles when the run is aborted mid-search", async () => {
    const f = await fixture();
    const line = `${JSON.stringify({ n: 1, pad: "z".repeat(80) })}\n`;
    await f.files({ "long.jsonl": line.repeat(400_000) });
    const controller = new AbortController();
    const reason = new Error("user abort");
    const outcome = await f
      .search({ path: "long.jsonl", filters: [{ field: "n", min: 2 }] }, controller.signal, () =>
        controller.abort(reason),
      )
      .then(
        () => "finished",
        (error: unknown) => error,
      );
    expect(outcome).toBe(reason);
  });

  it("keeps the whole answer within maxOutputChars however many rows match", async () => {
    const f = await fixture({ maxOutputChars: 2_000, maxRows: 200 });
    await f.files({ "w.jsonl": jsonl(Array.from({ length: 500 }, (_, i) => ({ i, pad: "p".repeat(200) }))) });
    const { content, details } = await f.search({ path: "w.jsonl", limit: 200 });
    expect(details.truncated).toBe(true);
    expect(content.length).toBeLessThan(2_600);
    expect(content).toMatch(/^\d+ rows; [\d,]+ candidate lines parsed\.$/m);
  });
});

describe("folders and the workspace policy", () => {
  it("searches *.jsonl and *.ndjson under a folder, honouring .gitignore, in path order", async () => {
    const f = await fixture();
    const row = jsonl([{ level: "error" }]);
    await f.files({
      "b/two.ndjson": row,
      "a/one.jsonl": row,
      "notes.txt": row,
      "ignored/three.jsonl": row,
      ".gitignore": "ignored/\n",
    });
    const { details } = await f.search({ filters: [{ field: "level", equals: "error" }] });
    expect(details.rows.map((r) => `${r.file}:${r.line}`)).toEqual(["a/one.jsonl:1", "b/two.ndjson:1"]);
    const txt = await f.search({ glob: "*.txt", filters: [{ field: "level", equals: "error" }] });
    expect(txt.details.rows.map((r) => r.file)).toEqual(["notes.txt"]);
  });

  it("refuses paths outside the workspace, links that lead out, and secret files", async () => {
    const f = await fixture();
    await f.files({ ".aws/log.jsonl": jsonl([{ level: "error" }]), "ok.jsonl": jsonl([{ level: "error" }]) });
    await symlink(f.outside, join(f.dir, "out"));
    expect((await f.fail({ path: "../ws-evil" })).kind).toBe("Denied");
    expect((await f.fail({ path: "out" })).kind).toBe("Denied");
    expect((await f.fail({ path: ".aws/log.jsonl" })).kind).toBe("Denied");
    const all = await f.search({ glob: "*.jsonl", filters: [{ field: "level", equals: "error" }] });
    expect(all.details.rows.map((r) => r.file)).toEqual(["ok.jsonl"]);
  });

  it("tells the model what to fix: a filter with two tests, a bad regex, a bad text pattern, after_line on a folder", async () => {
    const f = await fixture();
    await f.files({ "a.jsonl": jsonl([{ a: 1 }]) });
    const two = await f.fail({ path: "a.jsonl", filters: [{ field: "a", equals: 1, min: 0 }] });
    expect(two.message).toContain("exactly one of equals, contains, regex, or min/max");
    const none = await f.fail({ path: "a.jsonl", filters: [{ field: "a" }] });
    expect(none.kind).toBe("InvalidInput");
    expect((await f.fail({ path: "a.jsonl", filters: [{ field: "a", regex: "(" }] })).message).toContain(
      "invalid",
    );
    expect((await f.fail({ path: "a.jsonl", text: "(" })).kind).toBe("InvalidInput");
    expect((await f.fail({ path: "a.jsonl", filters: [{ field: "a..b", equals: 1 }] })).kind).toBe(
      "InvalidInput",
    );
    expect((await f.fail({ path: ".", after_line: 3 })).message).toContain("single file");
    expect((await f.fail({ path: "missing.jsonl" })).kind).toBe("NotFound");
    execFileSync("mkfifo", [join(f.dir, "pipe.jsonl")]);
    expect((await f.fail({ path: "pipe.jsonl" })).message).toContain("neither a file nor a folder");
  });

  it("uses the raw-line text pattern as the prefilter when given", async () => {
    const f = await fixture();
    await f.files({ "t.jsonl": jsonl([{ m: "alpha" }, { m: "beta" }, { m: "ALPHA" }]) });
    const { details } = await f.search({ path: "t.jsonl", text: "alpha", ignore_case: true });
    expect(details.prefilter).toBe("alpha");
    expect(details.candidates).toBe(2);
    expect(details.rows.map((row) => row.line)).toEqual([1, 3]);
  });
});
