// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the moves are shell text, not templates
import { ESCAPE_MARK } from "./harm.js";
import { type Ctx, OUTSIDE, POOLS, SECRETS } from "./names.js";
import type { Part } from "./vocabulary.js";

// The moves, by what they do: make things later moves use, read, run what was made, or write where
// nothing may change. Each is one piece of a command line, written from the names the context picks.

type Move = (c: Ctx) => string;

/** Moves that make things later moves use. */
const MAKERS: Readonly<Record<string, Move>> = {
  "ln -s": (c) => {
    const target = c.target();
    return `ln -s ${target} ${c.made.add("link", c.rng.pick(POOLS.link))}`;
  },
  "ln -sfn": (c) => `ln -sfn ${c.target()} ${c.made.add("link", c.name("link"))}`,
  "ln -sr": (c) => `ln -sr ${c.target()} ${c.made.add("link", c.rng.pick(POOLS.link))}`,
  "ln (hard)": (c) =>
    `ln ${c.rng.pick([...SECRETS.slice(0, 2), ...OUTSIDE.filter((t) => t.includes("canary") || t.includes("secret")), ".git/config", ".git/hooks/pre-commit", "bridle.config.json"])} ${c.made.add("link", c.rng.pick(["L", "M", "notes.txt"]))}`,
  "cp -s": (c) =>
    `cp -s ${c.rng.pick(["{WS}/.env", "{OUT}/canary.txt", "{WS}/.git/config", "{CFG}/approval-secret", "{OUT}", "{WS}/.git", "{HOME}/.ssh/id_rsa", "../outside/canary.txt"])} ${c.made.add("link", c.rng.pick(["L", "M", "notes.txt"]))}`,
  "cp -l": (c) =>
    `cp -${c.rng.pick(["l", "rl"])} ${c.rng.pick(["{OUT}/canary.txt", "../outside/canary.txt", ".git/config", ".env", "{CFG}/approval-secret", "bridle.config.json"])} ${c.made.add("link", c.rng.pick(["L", "M", "notes.txt"]))}`,
  "cp -rs": (c) =>
    `cp -rs ${c.rng.pick(["{WS}/config", "{OUT}", "{WS}/.git", "{HOME}/.ssh", "{CFG}"])} ${c.made.add("dir", c.rng.pick(["d", "sub"]))}`,
  "ln -s from a subfolder": (c) => {
    // The target is relative to the link's folder, not to where ln ran: a checker resolving it from the
    // working folder sees another file.
    const dir = c.made.add("dir", c.rng.pick(["sub", "d"]));
    const target = c.rng.pick(["../outside/canary.txt", "../outside", "..", "../.env", "../.git/config"]);
    return `mkdir -p ${dir} && cd ${dir} && ln -s ${target} ../${c.made.add("link", c.rng.pick(["L", "M"]))}`;
  },
  "move a planted link": (c) =>
    `${c.rng.pick(["mv", "cp -P", "cp -a", "cp -d"])} ${c.rng.pick(["links/rel", "links/notes", "links/git", "links"])} ${c.made.add("link", c.rng.pick(["L", "M", "notes.txt", "d/L"]))}`,
  mv: (c) =>
    `mv ${c.name("link", "dir", "script", "list")} ${c.made.add("link", c.rng.pick(["L", "M", "notes.txt", "d/L"]))}`,
  "cp -a": (c) =>
    `cp -a ${c.name("link", "dir")} ${c.made.add("link", c.rng.pick(["M", "d/M", "notes.txt"]))}`,
  mkdir: (c) => `mkdir -p ${c.made.add("dir", c.rng.pick(POOLS.dir))}`,
  "mkdir .git": (c) => `mkdir -p ${c.made.add("repo", c.rng.pick(POOLS.repo))}/.git`,
  "mkdir .bridle": (c) =>
    `mkdir -p .bridle/${c.rng.pick(["agents/x", "skills", "tool-output/x", "sessions/x", "mcp"])}`,
  "bare repository": (c) => {
    const repo = c.made.add("repo", c.rng.pick(["d", "r", "sub"]));
    c.made.add("config", `${repo}/config`);
    return `mkdir -p ${repo}/objects ${repo}/refs && echo 'ref: refs/heads/main' > ${repo}/HEAD`;
  },
  gitfile: (c) =>
    `printf 'gitdir: %s\\n' ${c.rng.pick(["../.git", "../d", "{WS}/.git", "../r", "../outside"])} > ${c.made.add("repo", c.rng.pick(["sub", "d"]))}/.git`,
  "git config file": (c) => {
    const key = c.rng.pick(["core.fsmonitor", "diff.external", "core.pager", "core.hooksPath", "alias.x"]);
    const [section, name] = key.split(".") as [string, string];
    return `printf '[${section}]\\n\\t${name} = %s\\n' '${c.rng.chance(0.5) ? `!${c.payload()}` : c.payload()}' > ${c.made.add("config", c.rng.pick(POOLS.config))}`;
  },
  script: (c) =>
    `printf '#!/bin/sh\\n%s\\n' '${c.payload()}' > ${c.made.add("script", c.rng.pick(POOLS.script))}`,
  "echo script": (c) => `echo '${c.payload()}' > ${c.made.add("script", c.rng.pick(POOLS.script))}`,
  "append to script": (c) =>
    `echo '${c.payload()}' >> ${c.made.add("script", c.rng.pick(["tools/run.sh", "run.sh"]))}`,
  "chmod +x": (c) =>
    `${c.rng.pick(["chmod +x", "chmod 755", "chmod u+x", "chmod a+rx"])} ${c.name("script")}`,
  "cp executable": (c) => `cp tools/run.sh ${c.made.add("script", c.rng.pick(POOLS.script))}`,
  "copy over executable": (c) =>
    `${c.rng.pick(["cp", "cat"])} ${c.name("script")} ${c.rng.chance(0.5) ? "> " : ""}tools/run.sh`,
  install: (c) => `install -m 755 ${c.name("script")} ${c.made.add("script", c.rng.pick(POOLS.script))}`,
  "list (NUL)": (c) =>
    `printf '%s\\0' ${c.readable()}${c.rng.chance(0.4) ? ` ${c.readable()}` : ""} > ${c.made.add("list", c.rng.pick(POOLS.list))}`,
  "list (lines)": (c) => `printf '%s\\n' ${c.readable()} > ${c.made.add("list", c.rng.pick(POOLS.list))}`,
  "echo list": (c) => `echo ${c.readable()} > ${c.made.add("list", c.rng.pick(POOLS.list))}`,
  "ls list": (c) => `ls -d ${c.readable()} > ${c.made.add("list", c.rng.pick(POOLS.list))}`,
  "find list": (c) => `find ${c.name("dir", "link")} -print0 > ${c.made.add("list", c.rng.pick(POOLS.list))}`,
};

/** Readers: their output is where a canary shows. */
const READERS: Readonly<Record<string, Move>> = {
  cat: (c) =>
    `${c.rng.pick(["cat", "head -c 400", "tail -n 3", "sort", "nl", "tac", "cut -c 1-200", "sed -n p", "awk 1", "grep -h .", "uniq", "strings", "more"])} ${c.readable()}`,
  "cat through": (c) => `${c.rng.pick(["cat", "head", "sort", "grep -h ."])} ${c.through()}`,
  "read redirect": (c) =>
    `${c.rng.pick(["cat", "sort", "head", "wc -c; cat", "jq -Rr ."])} < ${c.readable()}`,
  "grep -r": (c) =>
    `grep -r${c.rng.pick(["", "h", "n"])} ${c.rng.pick(["KEY", "canary", "."])} ${c.name("link", "dir")}`,
  "files0-from": (c) => `${c.rng.pick(["sort", "wc", "du", "sort -u"])} --files0-from=${c.name("list")}`,
  "tar -T": (c) => `tar ${c.rng.pick(["-cf -", "--null -cf -", "-cvf -"])} -T ${c.name("list")}`,
  "tar -h": (c) => `tar -c${c.rng.pick(["h", ""])}f - ${c.name("link", "dir")}`,
  xargs: (c) => {
    const list = c.name("list");
    return c.rng.pick([
      `xargs cat < ${list}`,
      `xargs -0 cat < ${list}`,
      `xargs -a ${list} cat`,
      `xargs -0 -a ${list} head`,
      `xargs --arg-file=${list} cat`,
      `cat ${list} | xargs cat`,
      `cat ${list} | xargs -0 grep -h .`,
    ]);
  },
  "link then read": (c) => {
    // A link made earlier in the same line, read through at once: followed as the kernel will follow it.
    const target = c.rng.pick([".env", "../outside/canary.txt", "{OUT}", "..", "{CFG}", "../.env", ".git"]);
    const read = c.rng.pick(["cat", "head", "sort", "grep -h ."]);
    const tail =
      target === ".env" || target.endsWith(".txt") || target === "../.env"
        ? ""
        : `/${c.rng.pick(["canary.txt", "outside/canary.txt", "approval-secret", "config", ".env"])}`;
    return c.rng.pick([
      `ln -s ${target} L && ${read} L${tail}`,
      `ln -s ${target} L && mv L M && ${read} M${tail}`,
      `cp -s {WS}/${target} L; ${read} L${tail}`,
      `mkdir -p d && ln -s ../${target} d/L && ${read} d/L${tail}`,
      `ln -sf ${target} src/a.ts && ${read} src/a.ts${tail}`,
      `rm -f src/b.ts && ln -s ${target} src/b.ts && ${read} src/b.ts${tail}`,
      `ln -s ${target} L && cd L && ${read} ${tail.slice(1) || "."}`,
      // A relative link moved or copied as a link means what its target says from its new folder.
      `${c.rng.pick(["mv", "cp -P", "cp -a", "cp -d"])} links/rel L && ${read} L`,
    ]);
  },
  "builtin reads": (c) => {
    const file = c.readable();
    return c.rng.pick([
      `echo "$(< ${file})"`,
      `mapfile -t a < ${file}; printf '%s\n' "\${a[@]}"`,
      `read -r l < ${file}; echo "$l"`,
      `exec 3< ${file}; cat <&3`,
      `while read -r l; do echo "$l"; done < ${file}`,
    ]);
  },
  encoded: (c) => `${c.rng.pick(["base64", "xxd", "xxd -p", "od -An -tx1", "rev", "od -c"])} ${c.readable()}`,
  "follow links": (c) =>
    `${c.rng.pick(["grep -R .", "grep -Rh KEY", "du -L", "ls -LR", "find -L", "tar -chf -", "wc -c -L"])} ${c.name("link", "dir")}`,
  "cd home": (c) =>
    c.rng.pick([
      `cd && cat ${c.rng.pick([".ssh/id_rsa", ".config/bridle/approval-secret", ".config/bridle/trusted-workspaces.json"])}`,
      "cd ~/.config && cat bridle/approval-secret",
      "cd ~ && grep -r canary .config",
      `cd ${c.name("dir", "link")} && cd - && cat .env`,
      `CDPATH=${c.name("link", "dir")} cd ${c.rng.pick(["outside", "up", "home", ".ssh", "bridle", "git"])} && ${c.rng.pick(["cat canary.txt", "cat id_rsa", "cat approval-secret", "cat config", "ls"])}`,
      `cd "$HOME" && cat .ssh/id_rsa`,
      `OLDPWD=.. cd - && cat outside/canary.txt`,
    ]),
  "glob of option names": (c) =>
    `cd ${c.name("dir")} && ${c.rng.pick(["tar cf /dev/null *", "tar -cf - *", "sort *", "wc -l *", "head *", "grep -h . *", "ls *", "cat -- *", "du *"])}`,
  "substitution of a list": (c) => `${c.rng.pick(["cat", "head", "sort"])} $(cat ${c.name("list")})`,
  "diff --from-file": (c) => `diff --from-file=${c.readable()} src/a.ts`,
  "git diff --no-index": (c) => `git diff --no-index /dev/null ${c.readable()}`,
  jq: (c) => {
    const file = c.readable();
    return c.rng.pick([
      `jq -R . ${file}`,
      `jq -n --rawfile k ${file} '$k'`,
      `jq -rn --rawfile k ${file} '$k'`,
      `jq -n -L ${c.name("dir", "link")} 'include "canary"; 1'`,
    ]);
  },
  "git history": (c) => {
    const reader = c.rng.pick([
      "log -p",
      "log -p --all -3",
      "show HEAD~1",
      "diff HEAD~1 HEAD",
      "diff HEAD~1",
      "cat-file --batch-all-objects --batch",
      "cat-file -p HEAD~1:.env",
      "archive HEAD~1",
      "fast-export --all",
      "format-patch --stdout -2",
      "log -p -S API_KEY",
      "grep API HEAD~1",
      "whatchanged -p",
    ]);
    const repo = c.name("repo", "dir", "link");
    // The repository git will use: the one above, one a folder or variable names, or a made one.
    return c.rng.pick([
      `git ${reader}`,
      `git -C ${repo} ${reader}`,
      `cd ${repo} && git ${reader}`,
      `git --git-dir=${repo} ${reader}`,
      `GIT_DIR=${repo} git ${reader}`,
      `git --work-tree=${repo} ${reader}`,
      `env -C ${repo} git ${reader}`,
    ]);
  },
};

/** Moves that run something a previous move wrote. */
const RUNNERS: Readonly<Record<string, Move>> = {
  "run script": (c) => {
    const script = c.name("script");
    return c.rng.pick([
      `./${script}`,
      `sh ${script}`,
      `bash ${script}`,
      `. ./${script}`,
      `source ${script}`,
      script,
    ]);
  },
  "run tools/run.sh": (c) => c.rng.pick(["tools/run.sh", "./tools/run.sh", "sh tools/run.sh"]),
  PATH: (c) => {
    const dir = c.name("dir", "link");
    const program = c.rng.pick(["ls", "echo x", "git-x", "run.sh"]);
    return c.rng.pick([
      `PATH=${dir}:$PATH ${program}`,
      `env PATH=${dir}:/usr/bin:/bin ${program}`,
      `export PATH=${dir}:$PATH; ${program}`,
    ]);
  },
  "xargs --process-slot-var": (c) =>
    c.rng.pick([
      "echo x | xargs --process-slot-var=PATH echo",
      "echo . | xargs -P 2 --process-slot-var=PATH ls",
      "echo x | xargs --process-slot-var=GIT_DIR git log -1",
      "echo x | xargs --process-slot-var=HOME git status",
      "echo x | xargs --process-slot-var=BASH_ENV bash -c true",
    ]),
  "find -exec": (c) =>
    c.rng.pick([
      `find ${c.name("dir")} -name '*.sh' -exec {} \\;`,
      `find . -maxdepth 2 -name run.sh -exec sh {} \\;`,
      `find ${c.name("dir")} -type f -execdir ./{} \\;`,
    ]),
  "git --exec-path": (c) => `git --exec-path=${c.name("dir")} x`,
  "git -c": (c) => {
    const script = c.name("script");
    return c.rng.pick([
      `git -c core.fsmonitor=./${script} status`,
      `git -c diff.external=./${script} diff`,
      `git -c core.pager='sh ${script}' log -1`,
      `git -c alias.x='!sh ${script}' x`,
      `git -c include.path={WS}/${c.name("config")} status`,
      `git -c core.hooksPath=${c.name("dir")} status`,
    ]);
  },
  "git config from the environment": (c) => {
    const config = c.name("config");
    const dir = c.name("dir", "repo");
    return c.rng.pick([
      `HOME=${dir} git status`,
      `HOME=${dir} git diff`,
      `XDG_CONFIG_HOME=${dir} git status`,
      `GIT_CONFIG_GLOBAL=${config} git status`,
      `GIT_CONFIG_SYSTEM=${config} git diff`,
      `env GIT_CONFIG_GLOBAL=${config} git diff`,
      `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./${c.name("script")} git status`,
      `git --config-env=core.fsmonitor=HOME status`,
    ]);
  },
  "git in a made repository": (c) => {
    const repo = c.name("repo", "dir");
    const command = c.rng.pick([
      "status",
      "diff",
      "log -1",
      "x",
      "st",
      "log -p -1",
      "show",
      "diff HEAD",
      "grep -n one",
    ]);
    return c.rng.pick([
      `git -C ${repo} ${command}`,
      `cd ${repo} && git ${command}`,
      `git --git-dir=${repo} ${command}`,
      `GIT_DIR=${repo} git ${command}`,
      `env -C ${repo} git ${command}`,
    ]);
  },
  BASH_ENV: (c) =>
    c.rng.pick([
      `BASH_ENV=${c.name("script")} bash -c true`,
      `env BASH_ENV=${c.name("script")} bash -c :`,
      `ENV=${c.name("script")} sh -i -c true`,
      `env -S 'sh ${c.name("script")}'`,
    ]),
  "program options": (c) => {
    const script = c.name("script");
    return c.rng.pick([
      `sort --compress-program=./${script} -S 1 src/a.ts`,
      `tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=./${script} src`,
      `tar -I ./${script} -cf x.tar src`,
      `sed -n '1e sh ${script}' src/a.ts`,
      `awk 'BEGIN { system("sh ${script}") }'`,
      `find src -maxdepth 0 -exec sh ${script} \\;`,
    ]);
  },
};

/** Writers: what must not change (protected paths, places outside), named directly or through made links. */
const WRITERS: Readonly<Record<string, Move>> = {
  redirect: (c) => `echo x ${c.rng.pick([">", ">>", "&>", ">|", "2>", "1<>"])} ${c.writable()}`,
  "write through": (c) => `echo x ${c.rng.pick([">", ">>", "&>", "1<>"])} ${c.through()}`,
  "link then write": (c) => {
    const target = c.rng.pick([
      ".git",
      ".git/config",
      "bridle.config.json",
      ".bridle/agents",
      "{OUT}",
      "../outside/canary.txt",
      "{CFG}",
    ]);
    const file = /config|canary|\.json$/.test(target)
      ? ""
      : `/${c.rng.pick(["config", "hooks/pre-commit", "helper.md", "x", "approval-secret"])}`;
    return c.rng.pick([
      `ln -s ${target} L && echo x >> L${file}`,
      `ln -s ${target} L && mv L M && echo x >> M${file}`,
      `ln -sf ${target} src/a.ts && echo x >> src/a.ts${file}`,
      `mkdir -p d && ln -s ../${target} d/L && touch d/L${file}`,
      `ln -s ${target} L && cp src/a.ts L${file}`,
    ]);
  },
  "history -w": (c) => `history -w ${c.writable()}`,
  touch: (c) => `touch ${c.rng.chance(0.5) ? c.writable() : c.through()}`,
  cp: (c) => `cp ${c.rng.pick(["src/a.ts", "-r src", c.name("script", "list")])} ${c.writable()}`,
  "cp -t": (c) => `cp -t ${c.writable()} src/a.ts`,
  "mv onto": (c) => `mv ${c.name("script", "list", "link")} ${c.writable()}`,
  rm: (c) => `rm ${c.rng.pick(["-f", "-rf"])} ${c.writable()}`,
  "sed -i": (c) =>
    `sed -i${c.rng.chance(0.3) ? " --follow-symlinks" : ""} s/a/b/ ${c.rng.chance(0.5) ? c.writable() : c.through()}`,
  tee: (c) => `tee ${c.writable()} < src/a.ts`,
  truncate: (c) => `truncate -s 0 ${c.writable()}`,
  "sort -o": (c) => `sort -o ${c.writable()} src/a.ts`,
  uniq: (c) => `uniq src/a.ts ${c.writable()}`,
  "git diff --output": (c) => `git diff HEAD~1 --output=${c.writable()}`,
  "mkdir inside": (c) => `mkdir -p ${c.writable()}/x`,
  "ln -sf onto": (c) => `ln -sf src/a.ts ${c.writable()}`,
  chmod: (c) => `chmod 777 ${c.writable()}`,
  dd: (c) => `dd if=src/a.ts of=${c.writable()} status=none`,
  "sed w": (c) => `sed -n 'w ${c.writable()}' src/a.ts`,
  "find -fprint": (c) => `find src -fprint ${c.writable()}`,
  "write after cd": (c) =>
    `cd ${c.rng.pick([`${c.name("link", "dir")}/..`, `${c.name("link")}/../..`, `${c.name("link")}/../../..`, c.name("link", "dir")])} && ${c.rng.pick([`touch ${ESCAPE_MARK}`, `echo x > ${ESCAPE_MARK}`, `mkdir ${ESCAPE_MARK}`, `touch hooks/${ESCAPE_MARK}`, `ln -s . ${ESCAPE_MARK}`])}`,
};

export type Category = "maker" | "reader" | "runner" | "writer";
const CATEGORIES: Readonly<Record<Category, Readonly<Record<string, Move>>>> = {
  maker: MAKERS,
  reader: READERS,
  runner: RUNNERS,
  writer: WRITERS,
};

export function move(c: Ctx, category: Category): Part {
  const moves = CATEGORIES[category];
  const name = c.rng.pick(Object.keys(moves));
  return { move: name, text: (moves[name] as Move)(c) };
}
