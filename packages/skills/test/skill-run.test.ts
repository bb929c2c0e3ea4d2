import { existsSync } from "node:fs";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { type AnyTool, BridleError, Workspace } from "@bridle/core";
import { CommandPolicy, type PolicyResult } from "@bridle/shell-policy";
import { tempWorkspace } from "@bridle/testing";
import { BubblewrapRunner, createShellTools, ShellEnvironment } from "@bridle/tools-shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillTools, SkillRegistry, type SkillRunDetails, type SkillRunResult } from "../src/index.js";
import { call, failure, writeSkill } from "./helpers.js";

const probe = await BubblewrapRunner.probe();

let dir: string;
let cleanup: () => Promise<void>;
let outside: { dir: string; cleanup: () => Promise<void> };
let skillsDir: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-skills-run-"));
  outside = await tempWorkspace("bridle-skills-outside-");
  skillsDir = join(outside.dir, "skills");
  const tools = await writeSkill(skillsDir, "tools", "name: tools\ndescription: Scripts.", "Run them.\n", {
    "scripts/argv.py": "import json, sys\nprint(json.dumps(sys.argv[1:]))\n",
    "scripts/hello.js": "console.log('node', process.argv.slice(2).join('|'))\n",
    "scripts/cwd.sh": 'pwd\necho "$#:$1"\n',
    "scripts/loud.py": "import sys\nsys.stdout.write('y' * 200000)\nsys.stderr.write('done')\n",
    "scripts/tool.rb": "puts 1\n",
    "scripts/sleep.sh": "echo started\nsleep 30 & wait\n",
    "scripts/steps.sh": "echo one\nsleep 0.3\necho two >&2\nsleep 0.3\nkill -TERM 0\n",
    "data/input.txt": "skill data\n",
  });
  await writeFile(join(outside.dir, "evil.py"), "print('ran a script from outside the skill')\n");
  await symlink(join(outside.dir, "evil.py"), join(tools, "scripts", "linked.py"));
});
afterEach(async () => {
  await cleanup();
  await outside.cleanup();
});

async function runTool(options: Parameters<typeof createSkillTools>[1] = {}): Promise<AnyTool> {
  const registry = await SkillRegistry.load({ folders: [skillsDir] });
  const { tools } = await createSkillTools(registry, options);
  const run = tools.find((tool) => tool.name === "skill_run");
  if (!run) throw new Error("no skill_run");
  return run;
}

function parsed(text: string): SkillRunResult {
  return JSON.parse(text) as SkillRunResult;
}

describe("skill_run", () => {
  it("passes arguments as separate words: shell syntax in them is never run", async () => {
    const run = await runTool();
    const args = ["two words", "; touch pwned", "$(touch pwned2)", "it's", "`touch pwned3`", "a\nb", "-"];
    const output = await call(run, { skill: "tools", script: "scripts/argv.py", args }, dir);
    const result = parsed(output.text);
    expect(result.success).toBe(true);
    expect(JSON.parse(result.stdout)).toEqual(args);
    for (const file of ["pwned", "pwned2", "pwned3"]) expect(existsSync(join(dir, file))).toBe(false);
    const details = output.details as SkillRunDetails;
    expect(details.argv.slice(0, 1)).toEqual(["python3"]);
    expect(details.runner).toBe("local");
  });

  it("runs .js with node and .sh with bash, from the workspace root", async () => {
    const run = await runTool();
    const node = parsed(
      (await call(run, { skill: "tools", script: "scripts/hello.js", args: ["a", "b"] }, dir)).text,
    );
    expect(node.stdout).toBe("node a|b\n");
    const sh = parsed(
      (await call(run, { skill: "tools", script: "scripts/cwd.sh", args: ["x y"] }, dir)).text,
    );
    expect(sh.stdout).toBe(`${dir}\n1:x y\n`);
  });

  it("refuses scripts outside the skill's folder, including through a symlink, and unknown kinds", async () => {
    const run = await runTool();
    const cases: [string, string, RegExp][] = [
      ["../../evil.py", "Denied", /outside the skill tools's folder/],
      [join(outside.dir, "evil.py"), "Denied", /outside the skill tools's folder/],
      ["scripts/linked.py", "Denied", /leads outside .*a symlink/],
      ["scripts/missing.py", "NotFound", /no such file/],
      ["scripts", "InvalidInput", /not a file/],
      ["scripts/tool.rb", "InvalidInput", /runs \.py, \.sh, \.bash, \.js, \.mjs, \.cjs scripts/],
    ];
    for (const [script, kind, message] of cases) {
      const refused = await failure(call(run, { skill: "tools", script }, dir));
      expect(refused.kind, script).toBe(kind);
      expect(refused.message, script).toMatch(message);
    }
  });

  it("refuses arguments that name paths outside the workspace and the skill's folder", async () => {
    const run = await runTool();
    await symlink("/etc", join(dir, "etc-link"));
    for (const arg of [
      "/etc/passwd",
      "../x",
      "--out=/tmp/elsewhere",
      "~/.ssh/id_rsa",
      "etc-link/passwd",
      outside.dir,
    ]) {
      const refused = await failure(
        call(run, { skill: "tools", script: "scripts/argv.py", args: [arg] }, dir),
      );
      expect(refused.kind, arg).toBe("Denied");
      expect(refused.message).toMatch(/outside the workspace and the skill's folder/);
    }
    // Paths inside the workspace, new or existing, and the skill's own files are fine.
    const skillFile = join(skillsDir, "tools", "data", "input.txt");
    const ok = parsed(
      (
        await call(
          run,
          { skill: "tools", script: "scripts/argv.py", args: ["out/new.txt", `--in=${skillFile}`] },
          dir,
        )
      ).text,
    );
    expect(JSON.parse(ok.stdout)).toEqual(["out/new.txt", `--in=${skillFile}`]);
  });

  it("streams the script's output as progress while it runs", async () => {
    const run = await runTool();
    const output = await call(run, { skill: "tools", script: "scripts/steps.sh" }, dir);
    expect(output.progress).toContainEqual({ stream: "stdout", text: "one\n" });
    expect(output.progress).toContainEqual({ stream: "stderr", text: "two\n" });
    const result = JSON.parse(output.text) as SkillRunResult;
    expect(result).toMatchObject({ stdout: "one\n", success: false, timed_out: false });
    expect(result.stderr.startsWith("two\n")).toBe(true);
    expect(result.exit_code).not.toBe(0);
  });

  it("caps the output the model sees and keeps all of it in a file in the workspace", async () => {
    const run = await runTool({ shell: { sandbox: { max_stdout_bytes: 1000 } } });
    const output = await call(run, { skill: "tools", script: "scripts/loud.py" }, dir);
    const result = parsed(output.text);
    expect(result.stdout.length).toBeLessThan(1200);
    expect(result.stdout).toMatch(/bytes omitted of 200000/);
    expect(result.stderr).toBe("done");
    expect(result.message).toMatch(/stdout was 200000 bytes/);
    const file = (output.details as SkillRunDetails).stdout_file;
    expect(file && (await readFile(file, "utf8")).length).toBe(200000);
  });

  it("asks the approver unless scripts are trusted, and refuses when the sandbox disables commands", async () => {
    const context = { runId: "r", workspace: new Workspace(dir), signal: new AbortController().signal };
    const args = { skill: "tools", script: "scripts/argv.py", args: [] };
    const asking = await runTool();
    expect(await asking.needsApproval?.(asking.inputSchema.parse(args), context)).toBe(true);
    const trusting = await runTool({ trustScripts: true });
    expect(await trusting.needsApproval?.(trusting.inputSchema.parse(args), context)).toBe(false);
    const disabled = await runTool({ shell: { sandbox: { shell_enabled: false } } });
    const refused = await failure(call(disabled, args, dir));
    expect(refused.kind).toBe("Denied");
    expect(refused.message).toMatch(/disabled by the sandbox policy/);
  });

  it.skipIf(!probe.available)(
    `contains a script that writes outside the workspace under the bubblewrap runner${probe.available ? "" : ` — SKIPPED: ${probe.reason}`}`,
    async () => {
      // The skill lives in the workspace (.agents/skills): bwrap gives commands a private /tmp, so a
      // skill folder elsewhere under /tmp would not be visible inside the sandbox.
      const home = join(homedir(), `.bridle-skills-escape-${process.pid}`);
      const sibling = join(outside.dir, "escaped.txt");
      const skills = join(dir, ".agents", "skills");
      await writeSkill(skills, "escaper", "name: escaper\ndescription: Tries to leave.", "x\n", {
        "scripts/escape.py": [
          "import os",
          "results = []",
          `for path in [${JSON.stringify(home)}, ${JSON.stringify(sibling)}, os.path.join('..', 'parent-escape.txt'), 'inside.txt']:`,
          "    try:",
          "        open(path, 'w').write('escaped')",
          "        results.append(path + ': written')",
          "    except OSError as error:",
          "        results.append(path + ': ' + type(error).__name__)",
          "print('\\n'.join(results))",
        ].join("\n"),
      });
      try {
        const registry = await SkillRegistry.load({ folders: [skills] });
        const shell = await ShellEnvironment.create({ runner: new BubblewrapRunner() });
        const { tools } = await createSkillTools(registry, { shell, trustScripts: true });
        const run = tools.find((tool) => tool.name === "skill_run") as AnyTool;
        const result = parsed((await call(run, { skill: "escaper", script: "scripts/escape.py" }, dir)).text);
        expect(result.exit_code).toBe(0);
        expect(result.stdout).toMatch(/inside\.txt: written/);
        expect(existsSync(home)).toBe(false);
        expect(existsSync(sibling)).toBe(false);
        expect(existsSync(join(dir, "..", "parent-escape.txt"))).toBe(false);
        expect(await readFile(join(dir, "inside.txt"), "utf8")).toBe("escaped");
      } finally {
        await rm(home, { force: true });
        await rm(join(dir, "..", "parent-escape.txt"), { force: true });
      }
    },
  );
});

describe.skipIf(!probe.available)("skill_run under bubblewrap", () => {
  it("ends the run with invalid_config for a skill kept under /tmp, which the sandbox cannot see", async () => {
    const registry = await SkillRegistry.load({ folders: [skillsDir] });
    const shell = await ShellEnvironment.create({ runner: new BubblewrapRunner() });
    const { tools } = await createSkillTools(registry, { shell, trustScripts: true });
    const run = tools.find((tool) => tool.name === "skill_run") as AnyTool;
    const error = await call(run, { skill: "tools", script: "scripts/argv.py" }, dir).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(BridleError);
    expect((error as BridleError).code).toBe("invalid_config");
    expect((error as BridleError).message).toMatch(/under \/tmp, which the bubblewrap sandbox replaces/);
  });
});

describe("skill_run stops scripts", () => {
  it("at its timeout, and when the run is aborted, with the whole process tree", async () => {
    const run = await runTool();
    const timed = parsed(
      (await call(run, { skill: "tools", script: "scripts/sleep.sh", timeout_ms: 500 }, dir)).text,
    );
    expect(timed).toMatchObject({ timed_out: true, success: false, stdout: "started\n" });
    expect(timed.message).toMatch(/timed out after 500 ms/);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const aborted = parsed(
      (await call(run, { skill: "tools", script: "scripts/sleep.sh" }, dir, "run-abort", controller.signal))
        .text,
    );
    expect(aborted.success).toBe(false);
    expect(aborted.message).toMatch(/the run was aborted/);
  });
});

describe("skill_run and the workspace", () => {
  it("starts in the first workspace root even when the skill lives elsewhere", async () => {
    const run = await runTool();
    await mkdir(join(dir, "sub"));
    const sh = parsed((await call(run, { skill: "tools", script: "scripts/cwd.sh" }, join(dir))).text);
    expect(sh.stdout.split("\n")[0]).toBe(dir);
  });
});

describe("skill_run takes the shell tools' command path", () => {
  it("refuses what the user's deny rule names in bash's words, and honours the policy given", async () => {
    const rules = [{ decision: "deny" as const, argv: ["python3"] }];
    const run = await runTool({ shell: { policy: { rules } } });
    const refused = await failure(call(run, { skill: "tools", script: "scripts/argv.py" }, dir));
    expect(refused.kind).toBe("Denied");
    expect(refused.message).toBe(
      'your deny rule "python3" matches this command; do it another way or ask the user',
    );
    const shell = await createShellTools({ policy: { rules } });
    const viaBash = await failure(call(shell.bash, { command: "python3 -c 1" }, dir));
    expect(viaBash.message).toBe(refused.message);
    await shell.stopAll();
  });

  it("judges its command once for approval and run", async () => {
    const policy = new CountingPolicy({ mode: "read-only" });
    const shell = await ShellEnvironment.create({ policy });
    const run = await runTool({ shell });
    const workspace = new Workspace(dir);
    const args = run.inputSchema.parse({ skill: "tools", script: "scripts/argv.py", args: ["x"] });
    // A script outside the workspace: the policy cannot prove it read-only, so a person is asked.
    expect(
      await run.needsApproval?.(args, { runId: "r", workspace, signal: new AbortController().signal }),
    ).toBe(true);
    const result = parsed(
      (await call(run, { skill: "tools", script: "scripts/argv.py", args: ["x"] }, workspace)).text,
    );
    expect(result.stdout).toBe('["x"]\n');
    expect(policy.judged).toBe(1);
  });
});

/** A library user's policy that counts its judgements. */
class CountingPolicy extends CommandPolicy {
  judged = 0;
  override check(...args: Parameters<CommandPolicy["check"]>): Promise<PolicyResult> {
    this.judged++;
    return super.check(...args);
  }
}
