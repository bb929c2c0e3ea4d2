import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { BridleError } from "@bridle/core";

const found = new Map<string, Promise<string>>();

/**
 * The ripgrep binary to run: the configured path, else the one @vscode/ripgrep installed (its
 * platform package comes from the npm registry as an optional dependency), else `rg` on PATH.
 * Resolved once per configured value.
 */
export function locateRipgrep(configured?: string): Promise<string> {
  const key = configured ?? "";
  let located = found.get(key);
  if (!located) {
    located = search(configured);
    found.set(key, located);
    located.catch(() => found.delete(key));
  }
  return located;
}

async function search(configured: string | undefined): Promise<string> {
  if (configured !== undefined) {
    if (await isExecutable(configured)) return configured;
    throw new BridleError("invalid_config", `ripgrep path ${configured} is not an executable file`);
  }
  const bundled = await import("@vscode/ripgrep").then(
    (module: { rgPath: string }) => module.rgPath,
    () => undefined,
  );
  if (bundled && (await isExecutable(bundled))) return bundled;
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, process.platform === "win32" ? "rg.exe" : "rg");
    if (await isExecutable(candidate)) return candidate;
  }
  throw new BridleError(
    "tool_infrastructure",
    "ripgrep was not found: @vscode/ripgrep has no binary for this platform and there is no rg on PATH (install ripgrep, or pass ripgrepPath)",
  );
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}
