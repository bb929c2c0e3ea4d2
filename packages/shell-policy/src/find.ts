import { globRegex } from "./reach.js";
import type { Verdict } from "./verdict.js";
import { type ShellWord, staticWord } from "./words.js";

// Primaries that take one value word.
const VALUES = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-regextype",
  "-type",
  "-xtype",
  "-maxdepth",
  "-mindepth",
  "-newer",
  "-anewer",
  "-cnewer",
  "-perm",
  "-size",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-mtime",
  "-atime",
  "-ctime",
  "-mmin",
  "-amin",
  "-cmin",
  "-links",
  "-inum",
  "-samefile",
  "-lname",
  "-ilname",
  "-printf",
  "-fstype",
  "-context",
  "-used",
]);

// Primaries that take no value and neither write nor run anything.
const BOOLEANS = new Set([
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-depth",
  "-d",
  "-mount",
  "-xdev",
  "-noleaf",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-daystart",
  "-warn",
  "-nowarn",
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-true",
  "-false",
  "-nouser",
  "-nogroup",
  "-not",
  "-a",
  "-and",
  "-o",
  "-or",
  "(",
  ")",
  "!",
  ",",
  "-follow",
]);

// Operators that make the expression something other than a conjunction of tests.
const BRANCHING = new Set(["-o", "-or", "!", "-not", ","]);

/**
 * find: its roots are read; `-exec CMD {} ;` runs CMD on every file below them, so the files it reaches
 * are read by CMD (`find . -exec cat {} +` reads .env). Only a plain conjunction of `-name` tests narrows
 * what it reaches. Unknown primaries ask.
 */
export function judgeFind(args: readonly ShellWord[], verdict: Verdict): void {
  let i = 0;
  while (i < args.length && /^-(?:[HLP]|O[0-9]|D)$/.test(args[i]?.value ?? "")) {
    if (args[i]?.value === "-D") i++;
    if (args[i]?.value === "-L")
      verdict.hard.push("find -L follows symlinks, which may lead out of the workspace");
    i++;
  }
  const roots: ShellWord[] = [];
  for (; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (word.kind !== "dynamic" && /^[-(!),]/.test(word.value)) break;
    roots.push(word);
  }
  if (roots.length === 0) roots.push(staticWord("."));
  const names: RegExp[] = [];
  let branching = false;
  let runsOnFiles = false;
  for (; i < args.length; i++) {
    const word = args[i] as ShellWord;
    const token = word.value;
    if (word.kind === "dynamic") {
      verdict.hard.push(`find expression word "${word.text}" is not static`);
      continue;
    }
    if (BRANCHING.has(token)) branching = true;
    if (["-exec", "-execdir", "-ok", "-okdir"].includes(token)) {
      const end = args.findIndex((w, j) => j > i && (w.value === ";" || w.value === "+"));
      if (end === -1) {
        verdict.hard.push(`find ${token} has no terminating ";" or "+"`);
        return;
      }
      if (token.endsWith("dir"))
        verdict.hard.push(
          `find ${token} runs its command in each found file's folder, where paths mean other things`,
        );
      // `{}` alone is a found file; `{}` inside a longer word (`sh -c 'cat {}'`) is replaced too, unseen.
      const inner = args.slice(i + 1, end).map((w): ShellWord => {
        if (w.value === "{}") return { text: "{}", value: "{}", kind: "fd" };
        return w.value.includes("{}") ? { ...w, kind: "dynamic" } : w;
      });
      if (inner.length === 0) verdict.hard.push(`find ${token} names no command`);
      else verdict.nested.push({ words: inner, label: `find ${token}`, extraArgs: false });
      runsOnFiles = true;
      i = end;
    } else if (token === "-delete") {
      verdict.soft.push("find -delete removes files");
      for (const root of roots) verdict.paths.push({ word: root, access: "write" });
    } else if (["-fprint", "-fprint0", "-fls", "-fprintf"].includes(token)) {
      const target = args[i + 1];
      if (target) verdict.paths.push({ word: target, access: "write" });
      verdict.soft.push(`find ${token} writes a file`);
      i += token === "-fprintf" ? 2 : 1;
    } else if (token === "-files0-from") {
      const list = args[++i];
      if (list) verdict.paths.push({ word: list, access: "read" });
      verdict.hard.push("find -files0-from reads its roots from a file the policy cannot see");
    } else if (VALUES.has(token) || /^-newer[aBcmt][aBcmt]$/.test(token)) {
      const value = args[++i];
      if ((token === "-name" || token === "-iname") && value && value.kind !== "dynamic")
        names.push(globRegex(value.value, true));
    } else if (!BOOLEANS.has(token)) {
      verdict.hard.push(`find ${token} is not a primary the policy knows`);
    }
  }
  for (const root of roots) {
    verdict.paths.push(
      runsOnFiles
        ? { word: root, access: "read", recursive: true, only: branching ? [] : names }
        : { word: root, access: "read", names: true },
    );
  }
}
