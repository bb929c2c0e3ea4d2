// A line of plain words is decomposed without the grammar (plainDecompose) and then judged in the calling
// process. That shortcut is sound only if it says exactly what the parse tree says: these tests hold the
// two to the same decomposition on generated lines and on every line of the policy's own tables, and
// check that the lines it refuses (reserved words, assignments, anything but plain words) go to the parser.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Decomposition, decompose, plainDecompose, type WalkBudget } from "../src/decompose.js";
import { loadBashParser, withTree } from "../src/grammar.js";
import { CommandPolicy } from "../src/index.js";
import { TABLES } from "./attack/cases.js";

const budget = (): WalkBudget => ({ maxSubcommands: 64, maxDepth: 12, commands: 0, exhausted: undefined });

async function parsed(line: string): Promise<Decomposition | undefined> {
  const parser = await loadBashParser();
  return withTree(parser, line, (root) => decompose(root, budget(), 0, []));
}

// Words an agent's plain commands are made of, and words bash or the grammar read specially.
// biome-ignore format: a pool of words, kept dense
const TOKENS = [
  "echo", "ls", "-la", "git", "status", "diff", "HEAD", "--", "cat", "src/a.ts", "rm", "-rf", "/", ".", "..",
  "./x", "sh", "bash", "-c", "-lc", "env", "sudo", "cd", "pushd", "popd", "xargs", "find", "-exec",
  "-delete", "npm", "test", "run", "node", "python3", "exec", "eval", "source", "alias", "builtin",
  "command", "trap", "kill", "nohup", "timeout", "nice", "5", "0", "10", "2", ":", "true", "false", "a=b",
  "FOO=bar", "PATH=/tmp", "--foo=bar", "=", "a,b", "x:y", "@", "%1", "+x", "a.b", "-", "if", "then", "else",
  "elif", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", "select", "function", "time",
  "coproc", "declare", "typeset", "export", "readonly", "local", "unset", "unsetenv", "let", "shopt", "set",
  "enable", "hash", "type", "which", "printf", "read", "mapfile", "wait", "fg", "bg", "jobs", "disown",
  "getopts", "ulimit", "umask", "chmod", "777", "chown", "curl", "wget", "ssh", "scp", "dd", "of=/dev/sda",
  "if=/dev/zero", "tee", "out.txt", "mv", "cp", "ln", "-s", "/etc/passwd", "~", "*.ts", "a?b", "[ab]",
  "{a,b}", "$HOME", "'q'", '"q"', "a;b", "a|b", "a&b", "a>b", "a<b", "#c", "a\\b", "a\tb", "(", ")", "!",
  "{", "}", "[[", "]]", "[", "]", "é", "a b", "==", "x+:", "g++", "a@b", "50%",
];
const PLAIN_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:=+-";
// Words bash reserves, and builtins the grammar parses as nodes of their own.
// biome-ignore format: a list of words, kept dense
const NOT_PLAIN_WORDS = [
  "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select",
  "then", "time", "until", "while", "declare", "typeset", "export", "readonly", "local", "unset", "unsetenv",
  "let", "shopt", "set", "eval", "exec",
];

/** A small seeded generator (mulberry32): the same lines on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedLines(count: number, seed: number): string[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const words: string[] = [];
    const length = 1 + Math.floor(next() * 5);
    for (let k = 0; k < length; k++) {
      if (next() < 0.25) {
        let word = "";
        const size = 1 + Math.floor(next() * 8);
        for (let c = 0; c < size; c++) word += pick([...PLAIN_CHARS]);
        words.push(word);
      } else words.push(pick(TOKENS));
    }
    const gap = () => " ".repeat(1 + Math.floor(next() * 3));
    const edge = () => (next() < 0.2 ? " " : "");
    lines.push(edge() + words.join(gap()) + edge());
  }
  return lines;
}

describe("plain lines", () => {
  it("decomposes every plain line it accepts exactly as the parse tree does", async () => {
    const lines = [
      ...generatedLines(4000, 1),
      ...Object.values(TABLES).flatMap((rows) => rows.map(([command]) => command)),
    ];
    let accepted = 0;
    for (const line of lines) {
      const plain = plainDecompose(line, budget(), 0, []);
      if (!plain) continue;
      accepted++;
      expect({ line, decomposition: plain }).toEqual({ line, decomposition: await parsed(line) });
    }
    // The generator must reach both sides: lines taken without the parser, and lines refused.
    expect(accepted).toBeGreaterThan(800);
    expect(accepted).toBeLessThan(lines.length - 800);
  });

  it("agrees with the parse tree on every pair of plain characters, and on short words of them", async () => {
    const all = PLAIN_CHARS;
    // One of each kind of character: a run of four of them covers how marks meet letters and each other.
    const kinds = "aZ0_./,:=+-";
    const lines: string[] = [];
    for (const c of all)
      for (const d of all) lines.push(`${c}${d}`, `${c}${d} x`, `echo ${c}${d}`, `x ${c} ${d}`);
    for (const c of kinds)
      for (const d of kinds)
        for (const e of kinds)
          for (const f of ["", ...kinds])
            lines.push(
              `${c}${d}${e}${f}`,
              `echo ${c}${d}${e}${f}`,
              `echo x${c}${d}${e}${f}x`,
              `${c}${d}${e}${f} -x`,
            );
    // Reserved words, builtins the grammar gives nodes of their own, and others, with each kind of mark
    // before or after them, after names of every shape (the grammar once misread `- if=x` and `- x=y`).
    const names = [
      "x",
      "echo",
      "-",
      "--",
      "-x",
      ":",
      "_",
      ".",
      "..",
      "/",
      "./x",
      "a.b",
      "a,b",
      "a:b",
      "0",
      "9",
    ];
    for (const name of names)
      for (const word of [...NOT_PLAIN_WORDS, "x", "echo", "test"])
        for (const c of ["", ...kinds])
          for (const w of [`${word}${c}`, `${c}${word}`, `${word}${c}x`])
            lines.push(`${name} ${w}`, `${name} ${w} y`, w, `${w} -`);
    const misread: string[] = [];
    let accepted = 0;
    for (const line of lines) {
      const plain = plainDecompose(line, budget(), 0, []);
      if (!plain) continue;
      accepted++;
      if (JSON.stringify(plain) !== JSON.stringify(await parsed(line))) misread.push(line);
    }
    expect(misread).toEqual([]);
    expect(accepted).toBeGreaterThan(lines.length / 2);
  }, 300_000);

  it("refuses what is not a plain simple command", () => {
    for (const line of [
      "",
      "   ",
      "FOO=bar ls",
      "a=b",
      "export FOO",
      "local x",
      "unset PATH",
      "if true",
      "echo if",
      "time ls",
      "coproc ls",
      "ls; rm x",
      "ls\trm",
      "ls\nrm",
      "cat 'a b'",
      'echo "x"',
      "echo $HOME",
      "echo ~",
      "ls *.ts",
      "ls a?",
      "ls [ab]",
      "echo {a,b}",
      "echo a#b",
      "echo \\x",
      "echo é",
      "echo a@b",
      "echo 50%",
      "x+: y",
      "g++ -c a.c",
      "echo ==",
      "- x",
      "-x y",
      ": x",
      ",x y",
      "ls > out",
      "ls | wc",
      "ls &",
      "(ls)",
      "! ls",
    ]) {
      expect({ line, plain: plainDecompose(line, budget(), 0, []) }).toEqual({ line, plain: undefined });
    }
    expect(plainDecompose("echo turn 12", budget(), 0, [])?.commands[0]?.words.map((w) => w.value)).toEqual([
      "echo",
      "turn",
      "12",
    ]);
  });

  it("counts a plain line against the sub-command budget like any other", () => {
    const tight: WalkBudget = { maxSubcommands: 0, maxDepth: 12, commands: 0, exhausted: undefined };
    expect(plainDecompose("ls", tight, 0, [])?.commands).toEqual([]);
    expect(tight.exhausted).toMatch(/more than 0 sub-commands/);
  });
});

describe("where a plain line is judged", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-plain-"));
    await mkdir(join(dir, "src"));
    await writeFile(join(dir, "src", "a.ts"), "export {};\n");
  });
  afterAll(() => cleanup());

  it("gives the same verdict in place as the policy process gives", async () => {
    const inPlace = new CommandPolicy();
    const isolated = new CommandPolicy({ isolation: "process" });
    // Plain lines, and plain lines whose nested script is not plain (`sh -c a=b` needs the parser).
    for (const line of [
      "ls -la src",
      "cat src/a.ts",
      "rm -rf src",
      "git status",
      "echo turn 7",
      "sh -c ls",
      "sh -c a=b",
      "bash -c rm",
      "env FOO=bar ls",
      "cat /etc/passwd",
      "timeout 5 cat src/a.ts",
      "xargs rm",
      "find . -delete",
    ]) {
      expect({ line, verdict: await inPlace.check(line, dir) }).toEqual({
        line,
        verdict: await isolated.check(line, dir),
      });
    }
  });

  const dist = new URL("../dist/index.js", import.meta.url).pathname;
  it.skipIf(!existsSync(dist))(
    "a plain node process judges a plain line itself and starts the policy process only for others",
    async () => {
      const script = `
        import { CommandPolicy } from ${JSON.stringify(dist)};
        import { readFileSync } from "node:fs";
        const children = () => readFileSync("/proc/self/task/" + process.pid + "/children", "utf8").trim();
        const policy = new CommandPolicy();
        const plain = await policy.check("cat src/a.ts", ${JSON.stringify(dir)});
        const before = children();
        const quoted = await policy.check("cat 'src/a.ts'", ${JSON.stringify(dir)});
        const after = children();
        const host = /^\\d+$/.test(after) ? readFileSync("/proc/" + after + "/cmdline", "utf8") : "";
        console.log(JSON.stringify({ plain: plain.decision, before, quoted: quoted.decision, after, host }));
      `;
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      });
      const out = JSON.parse(stdout) as { plain: string; before: string; quoted: string; host: string };
      expect(out).toMatchObject({ plain: "allow", before: "", quoted: "allow" });
      expect(out.host).toContain("policy-host");
    },
  );
});
