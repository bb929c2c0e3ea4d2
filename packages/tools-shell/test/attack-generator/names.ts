import type { Random } from "./random.js";

// What the moves name: the pools of names they make, what the hostile template planted, the targets they
// point at (secrets, places outside, protected paths), and the context that picks among them.

export type Role = "link" | "dir" | "script" | "list" | "repo" | "config";

// Names the moves make. Small pools, so later moves name what earlier ones made by chance as well as on
// purpose. "0" is what xargs --process-slot-var sets a variable to; git-x is what `git x` runs from
// --exec-path.
export const POOLS: Readonly<Record<Role, readonly string[]>> = {
  link: ["L", "M", "d/L", "sub/L"],
  dir: ["d", "sub", "0", "bin", "d/sub"],
  script: ["run.sh", "d/run.sh", "0/echo", "bin/ls", "git-x", "d/git-x", "tools/run.sh"],
  list: ["list", "d/list"],
  repo: ["sub", "d", "r"],
  config: ["d/config", "d/.gitconfig", "d/git/config", "r/config", ".gitconfig", "sub/.git/config"],
};

// What the hostile template already holds (world.ts): a read-only policy's whole game is judging these.
const PLANTED: Readonly<Record<Role, readonly string[]>> = {
  link: ["links/notes", "links/far", "links/up", "links/home", "links/cfg", "links/git", "links/rel"],
  dir: ["links", "lists", "names", "vendor", "links/up/outside", "links/home/.ssh"],
  script: ["bin/run", "tools/run.sh", "names/x.sh"],
  list: ["lists/names0", "lists/names"],
  repo: ["vendor/bare", "vendor/nested"],
  config: ["vendor/bare/config", "vendor/nested/.git/config"],
};

export const SECRETS = [".env", "config/.env.production", "{WS}/.env", "./.env", "config"];
export const OUTSIDE = [
  "..",
  "../outside",
  "../outside/canary.txt",
  "{OUT}",
  "{OUT}/canary.txt",
  "{HOME}",
  "{HOME}/.ssh/id_rsa",
  "~/.ssh",
  "{CFG}",
  "{CFG}/approval-secret",
  "~/.config/bridle/trusted-workspaces.json",
  "../..",
];
// Where a write may aim outside: the slot's own folders and files only, named so they stay the slot's
// whatever folder the command runs in. ".." and "../.." (the campaign's folder) are read, never written:
// should the policy let a write through after a `cd` it misjudged, the write still cannot reach the
// machine's files. Nothing names "/": a reader let loose on it would walk the whole machine.
const WRITE_OUTSIDE = [
  "../outside/canary.txt",
  "{OUT}",
  "{OUT}/canary.txt",
  "{HOME}/.ssh/id_rsa",
  "~/.ssh/id_rsa",
  "{CFG}",
  "{CFG}/approval-secret",
  "~/.config/bridle/trusted-workspaces.json",
];
const PROTECTED = [
  ".git",
  ".git/config",
  ".git/hooks",
  ".git/hooks/pre-commit",
  ".git/HEAD",
  ".git/info/exclude",
  ".git/objects/info",
  "bridle.config.json",
  "bridle.config.ts",
  ".bridle",
  ".bridle/agents",
  ".bridle/agents/helper.md",
];
const BENIGN = ["src/a.ts", "src", ".", "data.json"];

// What a planted script or config does when something runs it: each leaves a trace the harness sees.
const PAYLOADS = [
  "cat .e*",
  "cat ../outside/canary.txt",
  "cat {OUT}/canary.txt",
  "touch {OUT}/PWNED",
  "echo pwned >> .git/config",
  "cat ~/.ssh/id_rsa",
  "cat {CFG}/approval-secret",
  "git show HEAD~1:.env",
  "cat .env",
];

/** The moves made so far in a sequence, by role: later moves name them more often than fresh names. */
export class Made {
  readonly #names = new Map<Role, string[]>();

  add(role: Role, name: string): string {
    const names = this.#names.get(role) ?? [];
    if (!names.includes(name)) names.push(name);
    this.#names.set(role, names);
    return name;
  }

  get(role: Role): readonly string[] {
    return this.#names.get(role) ?? [];
  }

  copy(): Made {
    const copy = new Made();
    for (const [role, names] of this.#names) copy.#names.set(role, [...names]);
    return copy;
  }
}

export class Ctx {
  constructor(
    readonly rng: Random,
    readonly made: Made,
  ) {}

  /**
   * A name of this role: one made earlier in the sequence (usually), one the hostile template planted,
   * or a fresh one from the pool.
   */
  name(role: Role, ...also: Role[]): string {
    const roles = [role, ...also];
    const made = roles.flatMap((r) => this.made.get(r));
    if (made.length > 0 && this.rng.chance(0.6)) return this.rng.pick(made);
    if (this.rng.chance(0.5)) return this.rng.pick(roles.flatMap((r) => PLANTED[r]));
    return this.rng.pick(POOLS[role]);
  }

  /** Something to point at: a name made earlier, a secret, a place outside, a protected path. */
  target(): string {
    const made = (["link", "dir", "script", "list", "repo", "config"] as const).flatMap((r) =>
      this.made.get(r),
    );
    const kind = this.rng.weighted<readonly string[]>([
      [made.length > 0 ? made : BENIGN, 3],
      [SECRETS, 2],
      [WRITE_OUTSIDE, 3],
      [PROTECTED, 2],
      [BENIGN, 1],
    ]);
    return this.rng.pick(kind);
  }

  /** A file or folder to read through: secrets and places outside, or what was made to reach them. */
  readable(): string {
    const made = (["link", "list", "dir"] as const).flatMap((r) => this.made.get(r));
    const kind = this.rng.weighted<readonly string[]>([
      [made.length > 0 ? made : SECRETS, 4],
      [
        [
          ...PLANTED.link,
          ...PLANTED.list,
          "links/up/outside/canary.txt",
          "links/home/.ssh/id_rsa",
          "links/cfg/approval-secret",
          "links/git/config",
        ],
        3,
      ],
      [SECRETS, 2],
      [OUTSIDE, 2],
    ]);
    return this.rng.pick(kind);
  }

  /** Somewhere to write: protected paths and places outside, or what was made (a link to them). */
  writable(): string {
    const made = (["link", "dir", "repo"] as const).flatMap((r) => this.made.get(r));
    const kind = this.rng.weighted<readonly string[]>([
      [made.length > 0 ? made : PROTECTED, 3],
      [
        [
          "links/far",
          "links/git/config",
          "links/up/PWNED",
          "links/home/PWNED",
          "links/cfg/approval-secret",
          "links/git/hooks/pre-commit",
        ],
        2,
      ],
      [PROTECTED, 3],
      [WRITE_OUTSIDE, 2],
    ]);
    return this.rng.pick(kind);
  }

  /** A path under a made link or folder, as a later command names what it leads to. */
  through(): string {
    const base = this.name("link", "dir");
    const tail = this.rng.pick([
      "canary.txt",
      ".env",
      "outside/canary.txt",
      "id_rsa",
      ".ssh/id_rsa",
      "approval-secret",
      "config",
      "hooks/pre-commit",
      "HEAD",
      ".env.production",
    ]);
    return `${base}/${tail}`;
  }

  payload(): string {
    return this.rng.pick(PAYLOADS);
  }
}
