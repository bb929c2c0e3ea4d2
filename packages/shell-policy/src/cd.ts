import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { ClassRule } from "./examples.js";
import { resolveReal } from "./paths.js";

/**
 * Where `cd TARGET` (or `pushd TARGET`) leaves the shell, as bash decides it. By default (`-L`) bash
 * joins TARGET to its logical $PWD and removes each `..` with the component before it, as text: after
 * `cd L` (L a link to /a/b), `cd ..` goes back to the folder holding L, not to /a. Only when that fails
 * (a component before a `..` is not a folder, or the result does not exist) does it retry TARGET as the
 * kernel resolves it, which is also what `-P` does. The shell's folder is kept as the logical text: the
 * kernel resolves a path joined to it exactly as it resolves one relative to the real folder, since bash
 * reached that folder through the same text.
 */
export const CD_RULE: ClassRule = {
  why: "cd and pushd are judged logically, as bash resolves them; -P and a failed logical walk physically",
  examples: [
    ["cd src && cat a.ts", "allow"],
    ["cd src/util && cd .. && cat a.ts", "allow"],
    // up is a link to deep/er: bash drops "up" as text, so `up/../..` is the folder above the workspace.
    ["cd up/../.. && cat outside/canary.txt", "block"],
    ["cd up/../.. && touch outside/x", "deny"],
    ["pushd up/../.. && cat outside/canary.txt", "block"],
    ["cd up/.. && cat .env", "deny"],
    ["cd -P up/../.. && ls", "allow"],
    ["cd -L up/../.. && ls outside", "block"],
    // A component before ".." that is not a folder: bash falls back to the kernel's walk.
    ["cd missing/../.. && cat outside/canary.txt", "block"],
    ["cd up && cd ../.. && cat outside/canary.txt", "block"],
    ["cd -e up/../.. && cat outside/canary.txt", "block"],
  ],
};

/** The folders `cd target` may leave the shell in, from the logical folder `cwd` (one, or two when unsure). */
export function cdLandings(
  cwd: string,
  target: string,
  physical: boolean,
  cache?: Map<string, string>,
): string[] {
  const joined = isAbsolute(target) ? target : `${cwd}/${target}`;
  const kernel = resolveReal(joined, cache);
  if (physical) return [kernel];
  const logical = canonical(joined);
  if (logical === undefined) return [kernel];
  // The text exists as a folder now: bash takes it. If it does not exist yet (made later in the line,
  // or never), either walk may be the one that happens.
  return isFolder(logical) ? [logical] : [...new Set([logical, kernel])];
}

/** bash's sh_canonpath with PATH_CHECKDOTDOT: undefined when a component before ".." is not a folder. */
function canonical(path: string): string | undefined {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length > 0 && !isFolder(`/${parts.join("/")}`)) return undefined;
      parts.pop();
      continue;
    }
    parts.push(part);
  }
  return `/${parts.join("/")}`;
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
