import { isAbsolute, relative, resolve } from "node:path";
import { type AnyTool, defineTool, isSecretPath, isWithin, ToolFailure, type Workspace } from "@bridle/core";
import { z } from "zod";
import { commitIdentity, git, writingGit } from "../git.js";
import type { RunRegistry } from "../run-state.js";

const MAX_PATHS = 200;

const commitSchema = z.object({
  message: z.string().trim().min(1).max(10_000).describe("a summary line, then details"),
  paths: z
    .array(z.string().min(1))
    .min(1)
    .max(MAX_PATHS)
    .optional()
    .describe("default: the files you changed in this run"),
});

/**
 * git_commit: the one way the agent commits. Commands in the sandbox see `.git` read-only, and the file
 * tools refuse it, so a commit is an explicit call a person approves. git runs here, outside the sandbox,
 * with the repository's config neutralised (no hooks, filters, fsmonitor, signing programs), and commits
 * only the named paths: whatever else the user staged stays staged and uncommitted.
 */
export function createGitCommitTool(runs: RunRegistry): AnyTool {
  return defineTool({
    name: "git_commit",
    description:
      "Commit to the current branch (asks the user first): the files you changed in this run, or the paths given; the user's own changes only if you name them. Hooks and signing do not run.",
    inputSchema: commitSchema,
    annotations: { requires_approval: true, idempotent: false },
    execute: async (args, ctx) => {
      const state = await runs.get(ctx.runId, ctx.workspace.root).state;
      if (!state.repo.isGit) throw new ToolFailure("InvalidInput", "the workspace is not a git repository");
      const paths = args.paths ?? (await state.repo.changes(state.touched)).map((change) => change.path);
      if (paths.length === 0) {
        throw new ToolFailure("InvalidInput", "you changed no files in this run; name the paths to commit");
      }
      const specs = paths.map((path) => pathspec(path, ctx.workspace));
      const identity = await commitIdentity(state.repo.root);
      if (!identity) {
        throw new ToolFailure(
          "InvalidInput",
          "git has no user.name and user.email for this repository or user; ask the user to set them",
        );
      }
      const root = state.repo.root;
      await writingGit(root, ["add", "--all", "--", ...specs], identity);
      // With paths, commit takes only them (--only): the user's other staged changes stay staged.
      await writingGit(
        root,
        ["commit", "--no-verify", "--quiet", "-m", args.message, "--", ...specs],
        identity,
      );
      const head = (await git(root, ["log", "-1", "--format=%h %s"])).toString("utf8").trim();
      const stat = (
        await git(root, ["show", "--stat=120", "--format=", "--no-ext-diff", "--no-textconv", "HEAD"])
      )
        .toString("utf8")
        .trim();
      return {
        content: `committed ${head}\n${stat}`,
        details: { commit: head.split(" ")[0], paths },
      };
    },
  });
}

/** A literal pathspec for a workspace-relative path the agent may commit. */
function pathspec(path: string, workspace: Workspace): string {
  const absolute = resolve(workspace.root, path);
  if (isAbsolute(path) || !isWithin(workspace.root, absolute)) {
    throw new ToolFailure("Denied", `${path} is outside the workspace`);
  }
  const normal = relative(workspace.root, absolute) || ".";
  const reason = workspace.protectedReason(absolute);
  if (reason) throw new ToolFailure("Denied", `${path} is protected: ${reason}`);
  if (isSecretPath(normal))
    throw new ToolFailure("Denied", `${path} looks like a secret; it is not committed`);
  // :(literal) so a name like `*` or `:(glob)**` commits that file, not a pattern's matches.
  return `:(literal)${normal}`;
}
