import type { ClassRule } from "./examples.js";

/**
 * The repository judged is the one git would use (core's `discoverRepository`, which finds it as git does): an empty `.git` folder is passed over, a gitfile is
 * followed, `-C` options compose, and the repository found from the real folder is the one inspected.
 */
export const REPOSITORY_RULE: ClassRule = {
  why: "the repository is discovered as git discovers it, and its config judged",
  examples: [
    // evil/inner/.git is an empty folder: git uses evil, whose config runs programs.
    ["cd evil/inner && git log -1", "block"],
    ["git -C evil/inner status", "block"],
    ["git -C src -C ../evil/inner status", "block"],
    // wt/.git is a gitfile naming evil/.git.
    ["cd wt && git status", "block"],
    ["git -C wt diff", "block"],
    // sub/.git is an empty folder inside the workspace's own (plain) repository.
    ["cd sub && git status", "allow"],
    ["git -C sub log --oneline -1", "allow"],
    ["cd up/.. && git status", "allow"],
  ],
};
