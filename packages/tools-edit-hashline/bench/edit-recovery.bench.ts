/**
 * Edit recovery without a model: ~40 real source files from node_modules (read at run time, never copied
 * into the repository), the mistaken calls models make applied through both edit tools, and every outcome
 * sorted: correct, flagged (applied with a warning), silent corruption (reported as success, result differs
 * from the intended edit), actionable refusal (names the target line), bare refusal.
 *
 *   ./dev pnpm --filter @bridle/tools-edit-hashline exec vitest bench --run bench/edit-recovery.bench.ts
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AnyTool, type ToolCallEnv, ToolFailure, Workspace } from "@bridle/core";
import { createFsTools } from "@bridle/tools-fs";
import { test } from "vitest";
import { createHashlineTools, hashline, lineTag } from "../src/index.js";
import { random } from "../test/random.js";

const FILES = 40;
const TARGETS_PER_KIND = 2;
const STORE = fileURLToPath(new URL("../../../node_modules/.pnpm", import.meta.url));

type Outcome = "correct" | "flagged" | "silent" | "actionable" | "bare";
interface Call {
  readonly kind: string;
  /** The file as the model sees it before the call (a stale case changes it after the read). */
  readonly before: string[];
  readonly intended: string[];
  /** The target's line number in the file as the tool finds it. */
  readonly targetNow: number;
  readonly args: (tags: (line: number) => string) => Record<string, unknown>;
  readonly changeAfterRead?: (lines: string[]) => string[];
  /** The file's line break (LF unless a CRLF kind says so); the result must keep it. */
  readonly eol?: string;
}

async function sourceFiles(): Promise<{ name: string; lines: string[] }[]> {
  const out: { name: string; lines: string[] }[] = [];
  const entries = (await readdir(STORE).catch(() => [] as string[]))
    .filter((e) => !e.startsWith("@bridle"))
    .sort();
  for (const entry of entries) {
    if (out.length >= FILES) break;
    const file = await firstSourceFile(join(STORE, entry, "node_modules"), 0);
    if (file) out.push(file);
  }
  return out;
}

async function firstSourceFile(
  dir: string,
  depth: number,
): Promise<{ name: string; lines: string[] } | undefined> {
  if (depth > 4) return undefined;
  const names = (await readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  for (const entry of names) {
    const path = join(dir, entry.name);
    if (entry.isFile() && /\.(m?js|cjs|ts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      if ((await stat(path)).size > 120_000) continue;
      const text = await readFile(path, "utf8");
      const lines = text.split("\n");
      if (text.includes("\r") || !text.endsWith("\n")) continue;
      lines.pop();
      if (lines.length < 60 || lines.length > 1500 || lines.some((l) => l.length > 160)) continue;
      if (lines.filter((l) => l.trim().length >= 8).length < 30) continue;
      return { name: path.slice(STORE.length + 1), lines };
    }
  }
  for (const entry of names) {
    if (entry.isDirectory() && entry.name !== "test" && entry.name !== "tests") {
      const found = await firstSourceFile(join(dir, entry.name), depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

const EDITED = " /* edited */";
const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/** Lines worth editing: distinct, non-trivial, with distinct non-blank neighbours (0-based). */
function targets(lines: string[], rand: () => number, count: number, duplicated = false): number[] {
  const text = lines.join("\n");
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  const ok = lines
    .map((_, i) => i)
    .filter((i) => {
      const line = lines[i] as string;
      const prev = lines[i - 1];
      const next = lines[i + 1];
      if (prev === undefined || next === undefined || !prev.trim() || !next.trim()) return false;
      if (prev === line || next === line || prev === next) return false;
      if (duplicated) return line.trim().length >= 3 && (counts.get(line) ?? 0) >= 2;
      // Once in the file even as a substring: a correct call naming it matches only there.
      return line.trim().length >= 8 && text.split(line).length === 2 && !line.includes("\\");
    });
  const picked = new Set<number>();
  for (let tries = 0; picked.size < Math.min(count, ok.length) && tries < 100; tries++) {
    picked.add(ok[Math.floor(rand() * ok.length)] as number);
  }
  return [...picked];
}

const replaced = (lines: string[], i: number, text: string) => lines.map((l, j) => (j === i ? text : l));
const external = (lines: string[]) => ["// changed by someone else", ...lines];

/** A function adding one call that replaces line i+1 with itself plus EDITED, made with `toArgs`. */
function adder<A>(lines: string[], calls: Call[], toArgs: (made: A, line: string) => Call["args"]) {
  return (kind: string, i: number, made: A, extra: Partial<Call> = {}) =>
    calls.push({
      kind,
      before: lines,
      intended: replaced(lines, i, (lines[i] as string) + EDITED),
      targetNow: i + 1,
      args: toArgs(made, lines[i] as string),
      ...extra,
    });
}

function replaceCalls(lines: string[], rand: () => number): Call[] {
  const calls: Call[] = [];
  const add = adder(lines, calls, (args: (l: string) => Record<string, unknown>, l) => () => args(l));
  const each = (n = TARGETS_PER_KIND) => targets(lines, rand, n);
  for (const i of each(1)) add("control", i, (l) => ({ old_string: l, new_string: l + EDITED }));
  // A drifted old_string that is, exactly, text elsewhere in the file is a correct call for that place:
  // no tool can tell it from one, so it is counted apart (skipped), not as a mistake.
  const text = lines.join("\n");
  const drift = (kind: string, i: number, old: string, now: string) => {
    if (old === lines[i]) return; // nothing drifted (a line without indentation)
    if (text.includes(old)) skipped.set(kind, (skipped.get(kind) ?? 0) + 1);
    else add(kind, i, () => ({ old_string: old, new_string: now }));
  };
  for (const i of each()) drift("whitespace: extra indent", i, `  ${lines[i]}`, `  ${lines[i]}${EDITED}`);
  for (const i of each()) drift("whitespace: trailing space", i, `${lines[i]} `, `${lines[i]}${EDITED} `);
  for (const i of each())
    drift(
      "whitespace: tabs for spaces",
      i,
      (lines[i] as string).replace(/^( {2})+/, (m) => "\t".repeat(m.length / 2)),
      `${(lines[i] as string).replace(/^( {2})+/, (m) => "\t".repeat(m.length / 2))}${EDITED}`,
    );
  for (const i of each())
    add("escaped strings", i, (l) => ({
      old_string: jsonEscaped(`${l}\n${lines[i + 1]}`),
      new_string: jsonEscaped(`${l}${EDITED}\n${lines[i + 1]}`),
    }));
  for (const i of each()) {
    const now = external(lines);
    calls.push({
      kind: "stale read",
      before: lines,
      intended: replaced(now, i + 1, (lines[i] as string) + EDITED),
      targetNow: i + 2,
      args: () => ({ old_string: lines[i], new_string: (lines[i] as string) + EDITED }),
      changeAfterRead: external,
    });
  }
  for (const i of each())
    add("line-number prefix", i, (l) => ({
      old_string: `${i + 1}\t${l}`,
      new_string: `${i + 1}\t${l}${EDITED}`,
    }));
  for (const i of targets(lines, rand, TARGETS_PER_KIND, true))
    add("ambiguous anchor", i, (l) => ({ old_string: l, new_string: l + EDITED }));
  for (const i of each())
    add("leading newline", i, (l) => ({ old_string: `\n${l}`, new_string: l + EDITED }));
  for (const i of each())
    add("trailing newline", i, (l) => ({ old_string: `${l}\n`, new_string: l + EDITED }));
  for (const i of each())
    add("duplicated line above", i, (l) => ({ old_string: l, new_string: `${lines[i - 1]}\n${l}${EDITED}` }));
  for (const i of each())
    add("duplicated line below", i, (l) => ({ old_string: l, new_string: `${l}${EDITED}\n${lines[i + 1]}` }));
  // Slips in new_string alone: old_string matches as it is, so only the new text can tell.
  for (const i of each().filter((i) => /["']/.test(lines[i] as string)))
    add("escaped quotes, new only", i, (l) => ({ old_string: l, new_string: escapeQuotes(l + EDITED) }));
  for (const i of each())
    add("literal \\n beside real ones", i, (l) => ({
      old_string: `${lines[i - 1]}\n${l}\n${lines[i + 1]}`,
      new_string: `${lines[i - 1]}\n${l}${EDITED}\\n${lines[i + 1]}`,
    }));
  for (const i of each().filter((i) => /^\s+\S/.test(lines[i] as string)))
    add("literal \\t indent, new only", i, (l) => ({ old_string: l, new_string: tabSlip(l + EDITED) }));
  // A correct call whose new text adds escapes inside a comment: refusing it would be a false alarm.
  for (const i of each(1))
    add("control: escapes added", i, (l) => ({ old_string: l, new_string: l + ESCAPES }), {
      intended: replaced(lines, i, (lines[i] as string) + ESCAPES),
    });
  for (const i of each())
    add(
      "CRLF file",
      i,
      (l) => ({ old_string: `${l}\n${lines[i + 1]}`, new_string: `${l}${EDITED}\n${lines[i + 1]}` }),
      {
        eol: "\r\n",
      },
    );
  for (const i of each().filter((i) => /["']/.test(lines[i] as string)))
    add("unicode quotes", i, (l) => ({ old_string: curly(l), new_string: curly(l + EDITED) }));
  for (const i of each().filter((i) => /["']/.test(lines[i] as string)))
    add("unicode quotes, new only", i, (l) => ({ old_string: l, new_string: curly(l + EDITED) }));
  for (const i of each())
    add(
      "trailing space in the file",
      i,
      (l) => ({ old_string: `${l}\n${lines[i + 1]}`, new_string: `${l}${EDITED}\n${lines[i + 1]}` }),
      { before: replaced(lines, i, `${lines[i]}  `) },
    );
  for (const i of each().filter(
    (i) => /^\s+\S/.test(lines[i] as string) && /^\s+\S/.test(lines[i + 1] as string),
  ))
    add("indentation left off", i, (l) => ({
      old_string: `${l.trim()}\n${lines[i + 1]?.trim()}`,
      new_string: `${l.trim()}${EDITED}\n${lines[i + 1]?.trim()}`,
    }));
  return calls;
}

const ESCAPES = ' /* say "\\"hi\\"\\n" */';
/** Straight quotes typed as the typographic ones a model's training text is full of. */
const curly = (text: string) => text.replace(/"([^"]*)"/g, "\u201c$1\u201d").replace(/'/g, "\u2019");

const escapeQuotes = (text: string) => text.replace(/\\/g, "\\\\").replace(/(["'])/g, "\\$1");
/** The line's indentation written as literal \t sequences. */
const tabSlip = (text: string) =>
  text.replace(/^\s+/, (indent) => "\\t".repeat(Math.max(1, indent.length >> 1)));

function hashlineCalls(lines: string[], rand: () => number): Call[] {
  const calls: Call[] = [];
  const add = adder(
    lines,
    calls,
    (edit: (tag: (line: number) => string, l: string) => object, l) => (tag) => ({ edits: [edit(tag, l)] }),
  );
  const each = (n = TARGETS_PER_KIND) => targets(lines, rand, n);
  const replace = (tag: string, new_text: string) => ({ op: "replace_line", tag, new_text });
  for (const i of each(1)) add("control", i, (t, l) => replace(t(i + 1), l + EDITED));
  for (const i of each())
    add("stale tag", i, (t, l) => replace(t(i + 1), l + EDITED), {
      intended: replaced(external(lines), i + 1, (lines[i] as string) + EDITED),
      targetNow: i + 2,
      changeAfterRead: external,
    });
  for (const i of each())
    add("tag from the next row", i, (t, l) => replace(`${i + 1} ${t(i + 2)}`, l + EDITED));
  for (const i of each()) add("tag from the row above", i, (t, l) => replace(`${i + 1} ${t(i)}`, l + EDITED));
  for (const i of each()) {
    add("one-char-off tag", i, (t, l) => {
      const tag = t(i + 1);
      const last = tag[7] === "0" ? "1" : "0";
      return replace(tag.slice(0, 7) + last, l + EDITED);
    });
  }
  for (const i of each()) add("tag missing a character", i, (t, l) => replace(t(i + 1).slice(1), l + EDITED));
  for (const i of each()) add("wrong line number", i, (t, l) => replace(`${i + 3} ${t(i + 1)}`, l + EDITED));
  for (const i of each())
    add("pasted prefix, every line", i, (t, l) => replace(t(i + 1), hashline(i + 1, t(i + 1), l + EDITED)));
  for (const i of each())
    add("pasted prefix, some lines", i, (t, l) => ({
      op: "replace_range",
      start_tag: t(i + 1),
      end_tag: t(i + 2),
      new_text: `${hashline(i + 1, t(i + 1), l + EDITED)}\n${lines[i + 1]}`,
    }));
  for (const i of each()) add("trailing newline", i, (t, l) => replace(t(i + 1), `${l}${EDITED}\n`));
  for (const i of each())
    add("duplicated line above", i, (t, l) => replace(t(i + 1), `${lines[i - 1]}\n${l}${EDITED}`));
  for (const i of each())
    add("duplicated line below", i, (t, l) => replace(t(i + 1), `${l}${EDITED}\n${lines[i + 1]}`));
  for (const i of each().filter((i) => /["']/.test(lines[i] as string)))
    add("escaped quotes", i, (t, l) => replace(t(i + 1), escapeQuotes(l + EDITED)));
  for (const i of each().filter((i) => /^\s+\S/.test(lines[i] as string)))
    add("literal \\t indent", i, (t, l) => replace(t(i + 1), tabSlip(l + EDITED)));
  for (const i of each().filter((i) => (lines[i + 2] ?? "").trim() !== ""))
    add("literal \\n beside real ones", i, (t, l) => ({
      op: "replace_range",
      start_tag: t(i + 1),
      end_tag: t(i + 3),
      new_text: `${l}${EDITED}\n${lines[i + 1]}\\n${lines[i + 2]}`,
    }));
  for (const i of each()) add("two characters swapped", i, (t, l) => replace(swapTwo(t(i + 1)), l + EDITED));
  for (const i of each()) add("line number as the tag", i, (_, l) => replace(String(i + 1), l + EDITED));
  for (const i of each()) {
    const invented = Math.floor(rand() * 0xffffffff)
      .toString(16)
      .padStart(8, "0");
    add("invented tag", i, (_, l) => replace(invented, l + EDITED));
  }
  for (const i of each(1))
    add("control: escapes added", i, (t, l) => replace(t(i + 1), l + ESCAPES), {
      intended: replaced(lines, i, (lines[i] as string) + ESCAPES),
    });
  for (const i of each()) add("CRLF file", i, (t, l) => replace(t(i + 1), l + EDITED), { eol: "\r\n" });
  for (const i of each())
    add(
      "pasted prefix, first of two",
      i,
      (t, l) => replace(t(i + 1), `${hashline(i + 1, t(i + 1), l + EDITED)}\n${ADDED}`),
      {
        intended: [...lines.slice(0, i), (lines[i] as string) + EDITED, ADDED, ...lines.slice(i + 1)],
      },
    );
  for (const i of each().filter((i) => /["']/.test(lines[i] as string)))
    add("unicode quotes", i, (t, l) => replace(t(i + 1), curly(l + EDITED)));
  for (const i of each().filter((i) => /^\s+\S/.test(lines[i] as string)))
    add("indentation left off", i, (t, l) => replace(t(i + 1), l.trim() + EDITED));
  for (const i of each().filter((i) => (lines[i + 2] ?? "").trim() !== ""))
    add("range one line too long", i, (t, l) => ({
      op: "replace_range",
      start_tag: t(i + 1),
      end_tag: t(i + 3),
      new_text: `${l}${EDITED}\n${lines[i + 1]}`,
    }));
  for (const i of each().filter((i) => (lines[i - 2] ?? "").trim() !== ""))
    add("range starts a line early", i, (t, l) => ({
      op: "replace_range",
      start_tag: t(i - 1),
      end_tag: t(i + 1),
      new_text: `${lines[i - 1]}\n${l}${EDITED}`,
    }));
  for (const i of each())
    add("range one line short", i, (t, l) => replace(t(i + 1), `${l}${EDITED}\n${lines[i + 1]}${EDITED}`), {
      intended: replaced(
        replaced(lines, i, (lines[i] as string) + EDITED),
        i + 1,
        `${lines[i + 1]}${EDITED}`,
      ),
    });
  return calls;
}

const ADDED = "// added by the edit";

/** The tag with two neighbouring characters that differ swapped. */
function swapTwo(tag: string): string {
  for (let i = tag.length - 2; i >= 0; i--) {
    if (tag[i] !== tag[i + 1]) return `${tag.slice(0, i)}${tag[i + 1]}${tag[i]}${tag.slice(i + 2)}`;
  }
  return tag;
}

const skipped = new Map<string, number>();
const WARNED = /Warning: new line|repeats line|none was removed/;

/** Whether a refusal points at the line: "line N", a list "lines 3, N", or N's row shown as read shows it. */
function namesLine(message: string, line: number): boolean {
  return new RegExp(`\\blines? (\\d+, )*${line}\\b|(^|\\n) *${line}(\\t| [0-9a-f]{8} \\|)`, "i").test(
    message,
  );
}

async function measure() {
  const dir = await mkdtemp(join(tmpdir(), "bridle-edit-recovery-"));
  const workspace = new Workspace(dir);
  const fs = createFsTools();
  const [hashRead, hashEdit] = createHashlineTools({ defaultLimit: 5_000 });
  const ctx: ToolCallEnv = {
    signal: new AbortController().signal,
    workspace,
    runId: "bench",
    toolCallId: "b",
    progress: () => {},
  };
  const tally = new Map<string, Map<string, Record<Outcome, number>>>();
  const files = await sourceFiles();
  let n = 0;
  const run = async (tool: string, read: AnyTool, edit: AnyTool, call: Call) => {
    const path = `f${n++}.js`;
    const eol = call.eol ?? "\n";
    await writeFile(join(dir, path), `${call.before.join(eol)}${eol}`);
    await read.execute(read.inputSchema.parse({ path }), ctx);
    if (call.changeAfterRead)
      await writeFile(join(dir, path), `${call.changeAfterRead(call.before).join(eol)}${eol}`);
    const shownBefore = call.before;
    const tags = (line: number) => lineTag(line, shownBefore[line - 1] as string);
    let outcome: Outcome;
    try {
      const out = await edit.execute(edit.inputSchema.parse({ path, ...call.args(tags) }), ctx);
      const after = await readFile(join(dir, path), "utf8");
      if (after === `${call.intended.join(eol)}${eol}`) outcome = "correct";
      else outcome = WARNED.test(String(out.content)) ? "flagged" : "silent";
      if (outcome === "silent" && process.env.SHOW_SILENT)
        console.log(tool, call.kind, JSON.stringify(call.args(tags)), String(out.content).slice(0, 400));
    } catch (error) {
      if (!(error instanceof ToolFailure)) throw error;
      outcome = namesLine(error.message, call.targetNow) ? "actionable" : "bare";
      if ((outcome === "bare" || process.env.SHOW_KIND === call.kind) && process.env.SHOW_BARE)
        console.log(tool, call.kind, call.targetNow, error.message.slice(0, 600));
    }
    const byKind = tally.get(tool) ?? new Map();
    tally.set(tool, byKind);
    const row = byKind.get(call.kind) ?? { correct: 0, flagged: 0, silent: 0, actionable: 0, bare: 0 };
    byKind.set(call.kind, row);
    row[outcome]++;
  };
  for (const [index, file] of files.entries()) {
    for (const call of replaceCalls(file.lines, random(index + 1)))
      await run("edit_file (replace)", fs.readFile, fs.editFile, call);
    for (const call of hashlineCalls(file.lines, random(index + 101)))
      await run("edit_file (hashline)", hashRead as AnyTool, hashEdit as AnyTool, call);
  }
  await rm(dir, { recursive: true, force: true });
  return { files: files.length, tally };
}

function report(result: Awaited<ReturnType<typeof measure>>): string {
  const out = [`edit recovery on ${result.files} real files from node_modules`];
  if (skipped.size > 0) {
    out.push(
      `skipped as indistinguishable from a correct call elsewhere: ${[...skipped].map(([k, v]) => `${k} ${v}`).join(", ")}`,
    );
  }
  for (const [tool, byKind] of result.tally) {
    const sum: Record<Outcome, number> = { correct: 0, flagged: 0, silent: 0, actionable: 0, bare: 0 };
    out.push(`\n${tool}`, `  ${"kind".padEnd(28)} correct flagged silent actionable bare`);
    for (const [kind, row] of byKind) {
      out.push(
        `  ${kind.padEnd(28)} ${[row.correct, row.flagged, row.silent, row.actionable, row.bare].map((v, i) => String(v).padStart([7, 7, 6, 10, 4][i] as number)).join(" ")}`,
      );
      if (kind === "control") continue;
      for (const key of Object.keys(sum) as Outcome[]) sum[key] += row[key];
    }
    const mistaken = Object.values(sum).reduce((a, b) => a + b, 0);
    const refused = sum.actionable + sum.bare;
    out.push(
      `  mistaken calls ${mistaken}: silent corruption ${sum.silent} (${((100 * sum.silent) / mistaken).toFixed(1)}%), ` +
        `correct ${sum.correct}, flagged ${sum.flagged}, refused ${refused} (${sum.actionable} actionable, ${sum.bare} bare)`,
    );
  }
  return out.join("\n");
}

test("edit recovery", async ({ bench }) => {
  const result = await measure();
  console.log(report(result));
  await bench("report printed above (one measured pass)", () => {}).run({ iterations: 1, time: 0 });
});
