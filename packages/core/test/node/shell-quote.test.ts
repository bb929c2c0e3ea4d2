import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { shellCommand, shellQuote } from "../../src/node/index.js";

/** What `sh -c` receives as its arguments when given `command`: printed one per NUL-ended record. */
function argsThroughShell(command: string): string[] {
  const out = execFileSync("sh", ["-c", `printf '%s\\0' ${command}`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

// Deterministic pseudo-random words over the characters that break naive quoting.
function generatedWords(count: number): string[] {
  const alphabet = [
    "'",
    '"',
    "\\",
    "$",
    "`",
    "\n",
    "\t",
    " ",
    "*",
    "?",
    "[",
    "]",
    "{",
    "}",
    "~",
    "!",
    "#",
    ";",
    "&",
    "|",
    "<",
    ">",
    "(",
    ")",
    "$(",
    "é",
    "日本",
    "🙂",
    "a",
    "-",
    "=",
    "%",
    ",",
  ];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + (next() % 12) }, () => alphabet[next() % alphabet.length]).join(""),
  );
}

const FIXED = [
  "",
  "plain",
  "it's",
  "''",
  "a b",
  "$HOME",
  "`id`",
  "$(id)",
  "line\nbreak",
  "naïve 日本語 🙂",
  "-n",
  "\\",
  "*",
];

it("every word round-trips through a real sh -c unchanged, in both styles", () => {
  const words = [...FIXED, ...generatedWords(200)];
  for (const style of ["always", "when-needed"] as const) {
    const line = words.map((word) => shellQuote(word, style)).join(" ");
    expect(argsThroughShell(line)).toEqual(words);
  }
});

it("when-needed leaves plain words bare and quotes the rest; always quotes everything", () => {
  expect(shellQuote("src/a.ts", "when-needed")).toBe("src/a.ts");
  expect(shellQuote("a b", "when-needed")).toBe("'a b'");
  expect(shellQuote("", "when-needed")).toBe("''");
  expect(shellQuote("plain")).toBe("'plain'");
  expect(shellQuote("it's")).toBe(`'it'\\''s'`);
});

it("shellCommand runs exactly the argv, a command word holding = included", () => {
  expect(shellCommand(["printf", "%s|", "a b", "$x"], "when-needed")).toBe("printf '%s|' 'a b' '$x'");
  expect(
    execFileSync("sh", ["-c", shellCommand(["printf", "%s|", "a b", "$x", "it's"], "when-needed")], {
      encoding: "utf8",
    }),
  ).toBe("a b|$x|it's|");
  expect(shellCommand(["A=b", "x"], "when-needed")).toBe("'A=b' x");
  // Quoted, A=b is a program name (not found), not an assignment that would run x.
  expect(() =>
    execFileSync("sh", ["-c", shellCommand(["A=b", "true"], "when-needed")], { stdio: "ignore" }),
  ).toThrow();
});
