import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * A process entry this package builds into dist/ (the policy process): beside the
 * bundle that asks, or in dist/ of this package when running from source (tests run in place); undefined
 * when it was not built.
 */
export function builtEntry(name: string): string | undefined {
  for (const candidate of [`./${name}`, `../dist/${name}`]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}
