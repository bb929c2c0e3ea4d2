import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CommandPolicy, commandWrites } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
const policy = new CommandPolicy({ mode: "workspace-write" });

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-writes-"));
  await mkdir(join(dir, "src"));
  await writeFile(join(dir, "a.txt"), "alpha\nbeta\n");
  await writeFile(join(dir, "src", "b.txt"), "gamma\n");
  await writeFile(join(dir, "Makefile"), "all:\n\techo made > made.txt\n");
  await writeFile(join(dir, "package.json"), '{"scripts":{"x":"echo x > x.txt"}}\n');
  const git = (...args: string[]) => execa("git", args, { cwd: dir });
  await git("init", "-q");
  await git("-c", "user.email=t@t", "-c", "user.name=t", "add", ".");
  await git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base");
});
afterAll(() => cleanup());

const judged = async (command: string) => commandWrites(await policy.check(command, dir));

// Commands that write, or may: each must say "possible", whatever the policy decided about running it.
const WRITERS = [
  "echo hi > out.txt",
  "echo hi >> a.txt",
  "echo hi &> out.txt",
  "echo hi 2> err.txt",
  "echo hi >| out.txt",
  "echo hi >&out.txt",
  "cat a.txt 1>out.txt",
  "cat <<< hi > out.txt",
  "cat <<EOF > out.txt\nhi\nEOF",
  "{ echo a; echo b; } > out.txt",
  "for f in a b; do echo $f; done > out.txt",
  "while read l; do echo $l; done < a.txt > out.txt",
  "(echo hi > out.txt)",
  "(cd src && echo hi > out.txt)",
  "echo hi > out.txt &",
  "sleep 0 & echo hi > out.txt",
  "echo hi | tee out.txt",
  "cp a.txt c.txt",
  "mv a.txt c.txt",
  "rm a.txt",
  "mkdir d",
  "touch t.txt",
  "ln -s a.txt l.txt",
  "chmod +x a.txt",
  "truncate -s 0 a.txt",
  "sed -i s/alpha/omega/ a.txt",
  "sed -n 's/a/b/w out.txt' a.txt",
  "sort -o out.txt a.txt",
  "sort a.txt --output=out.txt",
  "uniq a.txt out.txt",
  "tree -o out.txt",
  "tree -R -H . -L 1",
  "file -C -m magic",
  "file a.txt",
  "git checkout -- a.txt",
  "git apply p.diff",
  "git stash",
  "git stash pop",
  "git reset --hard",
  "git clean -fd",
  "git diff --output=out.txt",
  "git -C src status",
  "git -c core.pager=x status",
  "npm install",
  "npm run x",
  "pnpm test",
  "make",
  "./script.sh",
  "sh script.sh",
  "bash -c 'echo hi > out.txt'",
  "bash -c 'echo hi'",
  'python3 -c \'open("o","w")\'',
  "node -e 1",
  "xargs rm < a.txt",
  "ls | xargs cat",
  "find . -delete",
  "find . -exec rm {} +",
  "find . -name a.txt",
  "echo $(touch t.txt)",
  "echo `touch t.txt`",
  "cat <(touch t.txt)",
  "cat a.txt > >(cat)",
  "eval 'echo hi > out.txt'",
  "source script.sh",
  ". script.sh",
  "exec 3> out.txt",
  "x=1",
  "f() { rm a.txt; }; f",
  "env cat a.txt",
  "timeout 5 cat a.txt",
  "nohup cat a.txt",
  "command cat a.txt",
  "$CMD a.txt",
  "cat a.txt | $X",
  "dd if=a.txt of=out.txt",
  "tar xf a.tar",
  "curl -o out.txt http://127.0.0.1:1/",
  "cat /etc/hostname > /tmp/bridle-writes-out",
  "echo 'a > b'",
];

// Commands that only read: "none", so nothing has to be rescanned after them.
const READERS = [
  "cat a.txt",
  "cat src/b.txt | wc -l",
  "rg alpha",
  "rg -n beta src",
  "grep -rn alpha .",
  "git status",
  "git status --short",
  "git diff",
  "git diff --stat HEAD",
  "git log --oneline -5",
  "git show HEAD",
  "ls -la",
  "ls src",
  "wc -l a.txt src/b.txt",
  "echo hi",
  "echo hi 2>/dev/null",
  "rg missing 2>/dev/null || echo none",
  "cat a.txt 2>&1 | head -1",
  "head -n 1 a.txt && tail -n 1 a.txt",
  "cd src && cat b.txt",
  "pwd; ls",
  "sort a.txt",
];

describe("details.writes: what the policy proves a command wrote", () => {
  it.each(WRITERS)("%s: possible", async (command) => {
    expect(await judged(command)).toBe("possible");
  });

  it.each(READERS)("%s: none", async (command) => {
    expect(await judged(command)).toBe("none");
  });

  it("is possible without a verdict, and for a denied or asked command", async () => {
    expect(commandWrites(undefined)).toBe("possible");
    const denied = await policy.check("cat /etc/shadow", dir);
    expect(denied.decision).not.toBe("allow");
    expect(commandWrites(denied)).toBe("possible");
  });

  it("is possible when an allow rule lifted a doubt the judge had", async () => {
    const lenient = new CommandPolicy({ rules: [{ decision: "allow", argv: ["uniq"] }] });
    const verdict = await lenient.check("uniq a.txt out.txt", dir);
    expect(verdict.decision).toBe("allow");
    expect(commandWrites(verdict)).toBe("possible");
  });
});
