// `/init`: the model drafts the workspace's AGENTS.md from what it reads of the repository, and writes it
// with its own file tools, so the write goes through the session's permission mode and approvals like any
// other. The prompt is the whole of the command: it sets nothing.

/** The turn `/init` sends; `extra` is what the person typed after the command. */
export function initPrompt(existing: boolean, extra: string): string {
  return [
    existing
      ? "This repository already has an AGENTS.md. Read it, then improve it where the repository shows it is wrong, missing or out of date; keep what is still true."
      : "Write an AGENTS.md at the root of this workspace: the instructions a coding agent reads before working here.",
    "First look at the repository: its README, its manifests (package.json, pyproject.toml, Cargo.toml, go.mod, Makefile…), its CI configuration, its layout, and any CLAUDE.md, .cursorrules or .github/copilot-instructions.md. Read; do not run commands that change anything.",
    "Then write the file. Keep it short (under about 80 lines) and specific to this repository:",
    "- how to install, build, lint and test, with the exact commands (and how to run one test);",
    "- the layout: what lives where, and the few files or folders that matter most;",
    "- the conventions the code follows that a newcomer would get wrong (style, naming, errors, tests);",
    "- what not to touch or commit (generated files, secrets, vendored code).",
    "State only what you saw in the repository; leave out generic advice. Say in one line what you wrote.",
    ...(extra ? [`Also: ${extra}`] : []),
  ].join("\n");
}
