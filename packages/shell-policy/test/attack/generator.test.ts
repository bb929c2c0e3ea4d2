import { shellQuote as quote } from "@bridle/core/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCommand } from "../../src/index.js";
import { harmDone, makeWorld, removeTemplate, removeWorld, type World } from "./fixture.js";

// Dangerous primitives wrapped in every construct the policy must see through. Nothing generated may
// be allowed: each primitive writes outside the workspace, reads a secret or outside file, or runs
// planted code. Should one be allowed anyway, it is run for real so the failure names the harm done.

const PRIMITIVES: Readonly<Record<string, string>> = {
  "touch outside": "touch {OUT}/PWNED-gen",
  "redirect outside": "echo x > {OUT}/PWNED-gen",
  "append outside": "echo x >> ../outside/PWNED-gen",
  "cp outside": "cp src/a.ts {OUT}/PWNED-gen",
  "sort -o outside": "sort -o {OUT}/PWNED-gen src/a.ts",
  "sort --out abbreviated": "sort --out={OUT}/PWNED-gen src/a.ts",
  "cp --t abbreviated": "cp --t={OUT} src/a.ts",
  "tee outside": "tee {OUT}/PWNED-gen < src/a.ts",
  "git diff --output": "git diff --output={OUT}/PWNED-gen",
  "write through a symlink": "echo x > out-link/PWNED-gen",
  "URL-looking path": "touch a://../../outside/PWNED-gen",
  "GIT_TRACE writes": "GIT_TRACE={OUT}/PWNED-gen git status",
  "read .env": "cat .env",
  "read .env by glob": "head -c 200 .e*",
  "read .env by bracket": "cat .[e]nv",
  "read recursively": "grep -r API_KEY .",
  "read outside": "cat {OUT}/canary.txt",
  "read the environment of a process": "cat /proc/self/environ",
  "jq --rawfile": "jq -n --rawfile k .env '$k'",
  "run a planted script": "sh planted.sh",
  "run a program file": "./planted.sh",
  "source a planted script": "source planted.sh",
  make: "make",
  "npm test": "npm test",
  "hostile repository config": "git -C evil log",
  "awk -f": "awk -f planted.awk src/a.ts",
  "sed -f": "sed -f planted.sed src/a.ts",
  "sed e command": "sed '1e sh planted.sh' src/a.ts",
  "env --split-str": "env --split-str='sh planted.sh'",
  "bash --rcfile": "bash --rcfile rcfile -ic true",
  "PATH redefined": "PATH=.:$PATH planted.sh",
};

const CONSTRUCTS: Readonly<Record<string, (p: string) => string>> = {
  bare: (p) => p,
  subshell: (p) => `( ${p} )`,
  group: (p) => `{ ${p}; }`,
  "after &&": (p) => `true && ${p}`,
  "after ||": (p) => `false || ${p}`,
  "after ;": (p) => `ls; ${p}`,
  "after newline": (p) => `ls\n${p}`,
  "in a pipeline": (p) => `ls | ${p} | cat`,
  background: (p) => `${p} & wait`,
  negated: (p) => `! ${p}`,
  if: (p) => `if true; then ${p}; fi`,
  while: (p) => `while true; do ${p}; break; done`,
  for: (p) => `for i in 1; do ${p}; done`,
  case: (p) => `case x in x) ${p};; esac`,
  function: (p) => `f() { ${p}; }; f`,
  "command substitution": (p) => `echo $(${p})`,
  backquotes: (p) => `echo \`${p}\``,
  "quoted substitution": (p) => `echo "$(${p})"`,
  "assigned substitution": (p) => `x=$(${p})`,
  "default expansion": (p) => `echo \${x:-$(${p})}`,
  "process substitution": (p) => `cat <(${p})`,
  "output process substitution": (p) => `ls > >(${p})`,
  "bash -c": (p) => `bash -c ${quote(p)}`,
  "sh -c": (p) => `sh -c ${quote(p)}`,
  "bash -lc": (p) => `bash -lc ${quote(p)}`,
  "bash -euo pipefail -c": (p) => `bash -euo pipefail -c ${quote(p)}`,
  "nested shells": (p) => `bash -c ${quote(`sh -c ${quote(p)}`)}`,
  eval: (p) => `eval ${quote(p)}`,
  env: (p) => `env ${p}`,
  "env -i": (p) => `env -i ${p}`,
  "env NAME=value": (p) => `env LC_ALL=C ${p}`,
  nice: (p) => `nice ${p}`,
  "nice -n": (p) => `nice -n 5 ${p}`,
  timeout: (p) => `timeout 5 ${p}`,
  "timeout -s": (p) => `timeout -s KILL 5 ${p}`,
  nohup: (p) => `nohup ${p}`,
  stdbuf: (p) => `stdbuf -oL ${p}`,
  command: (p) => `command ${p}`,
  exec: (p) => `exec ${p}`,
  time: (p) => `time ${p}`,
  setsid: (p) => `setsid ${p}`,
  "xargs sh -c": (p) => `echo x | xargs sh -c ${quote(p)}`,
  "xargs -I sh -c": (p) => `echo x | xargs -I{} sh -c ${quote(p)}`,
  "find -exec sh -c": (p) => `find . -maxdepth 0 -exec sh -c ${quote(p)} \\;`,
  "find -execdir sh -c": (p) => `find src -maxdepth 0 -execdir sh -c ${quote(p)} \\;`,
  "heredoc into sh": (p) => `cat <<EOF | sh\n${p}\nEOF`,
  "quoted heredoc into bash": (p) => `bash <<'EOF'\n${p}\nEOF`,
  "herestring into sh": (p) => `sh <<< ${quote(p)}`,
  "heredoc body substitution": (p) => `cat <<EOF\n$(${p})\nEOF`,
  "heredoc body backquotes": (p) => `cat <<EOF\n\`${p}\`\nEOF`,
  "after a heredoc": (p) => `cat <<EOF && ${p}\nx\nEOF`,
  "arithmetic expansion": (p) => `x=${quote(`a[$(${p})]`)}; echo $((x))`,
  "arithmetic command": (p) => `x=${quote(`a[$(${p})]`)}; (( x ))`,
  "[[ -eq ]]": (p) => `x=${quote(`a[$(${p})]`)}; [[ $x -eq 0 ]]`,
  "substring offset": (p) => `x=${quote(`a[$(${p})]`)}; y=abc; echo \${y:0:x}`,
  "test -v": (p) => `test -v ${quote(`a[$(${p})]`)}`,
  unset: (p) => `unset ${quote(`a[$(${p})]`)}`,
  declare: (p) => `declare ${quote(`a[$(${p})]=1`)}`,
  "printf -v": (p) => `printf -v ${quote(`a[$(${p})]`)} %s 1`,
  read: (p) => `read ${quote(`a[$(${p})]`)} <<< 1`,
  "prompt expansion": (p) => `y=${quote(`$(${p})`)}; echo \${y@P}`,
  "indirect expansion": (p) => `x=${quote(`a[$(${p})]`)}; echo \${!x}`,
};

let world: World;
beforeAll(() => {
  world = makeWorld();
});
afterAll(() => {
  removeWorld(world);
  removeTemplate();
});

const fill = (command: string) => command.replaceAll("{OUT}", world.outside);

describe("generated attacks: primitives wrapped in constructs", () => {
  for (const [primitive, p] of Object.entries(PRIMITIVES)) {
    it(`no construct lets "${primitive}" through`, async () => {
      const allowed: string[] = [];
      for (const [construct, wrap] of Object.entries(CONSTRUCTS)) {
        const command = fill(wrap(p));
        const result = await checkCommand(command, { workspace: world.ws });
        if (result.decision !== "allow") continue;
        const probe = makeWorld();
        const harm = await harmDone(probe, wrap(p).replaceAll("{OUT}", probe.outside));
        removeWorld(probe);
        allowed.push(`${construct}: ${JSON.stringify(command)} → ${harm.join(", ") || "allowed"}`);
      }
      expect(allowed).toEqual([]);
    });
  }

  it("generates at least 1500 cases", () => {
    expect(Object.keys(PRIMITIVES).length * Object.keys(CONSTRUCTS).length).toBeGreaterThanOrEqual(1500);
  });
});

describe("the check never throws", () => {
  it("turns an internal error into an ask carrying its reason", async () => {
    const result = await checkCommand("ls", { workspace: 42 as unknown as string });
    expect(result.decision).toBe("ask");
    expect(result.reasons[0]).toMatch(/failed while judging/);
  });

  it("answers every truncation and corruption of the generated commands", async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const junk = ["'", '"', "`", "$(", "((", "[[", "{", "}", "<<", "\\", "${", "]", ")", ";", "|"];
    const primitives = Object.values(PRIMITIVES);
    const constructs = Object.values(CONSTRUCTS);
    for (let i = 0; i < 400; i++) {
      const p = primitives[Math.floor(random() * primitives.length)] as string;
      const wrap = constructs[Math.floor(random() * constructs.length)] as (p: string) => string;
      let command = fill(wrap(p));
      const at = Math.floor(random() * command.length);
      command =
        random() < 0.5
          ? command.slice(0, at)
          : command.slice(0, at) + (junk[Math.floor(random() * junk.length)] as string) + command.slice(at);
      const result = await checkCommand(command, { workspace: world.ws });
      expect(["allow", "ask", "deny"], command).toContain(result.decision);
      expect(result.reasons.length, command).toBeGreaterThan(0);
    }
  });
});
