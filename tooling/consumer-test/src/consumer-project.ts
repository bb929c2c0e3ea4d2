import { execFile } from "node:child_process";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A throwaway npm project outside the workspace that installs Bridle packages from tarballs. */
export class ConsumerProject {
  readonly dir: string;
  readonly #tarballs: ReadonlyMap<string, string>;

  /** `tarballs`: every @bridle package any install may need, by name. */
  constructor(dir: string, tarballs: ReadonlyMap<string, string>) {
    this.dir = dir;
    this.#tarballs = tarballs;
  }

  /**
   * Installs exactly `direct` as the project's dependencies and returns what npm warned about (skipped
   * install scripts, deprecations, peer conflicts). Every other @bridle package is pinned to its
   * tarball through npm `overrides`, so a transitive @bridle dependency (provider-kit) never comes from
   * the registry; third-party dependencies do.
   */
  async install(direct: readonly string[]): Promise<{ readonly warnings: string }> {
    const spec = (name: string) => {
      const tarball = this.#tarballs.get(name);
      if (!tarball) throw new Error(`no tarball for ${name}`);
      return `file:${tarball}`;
    };
    const overrides = [...this.#tarballs.keys()].filter((name) => !direct.includes(name));
    const manifest = {
      name: "bridle-consumer",
      version: "1.0.0",
      private: true,
      type: "module",
      dependencies: Object.fromEntries(direct.map((name) => [name, spec(name)])),
      overrides: Object.fromEntries(overrides.map((name) => [name, spec(name)])),
    };
    await mkdir(this.dir, { recursive: true });
    await writeFile(join(this.dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const { stderr } = await run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=warn", "--engine-strict"],
      { cwd: this.dir, maxBuffer: 16 * 1024 * 1024, env: npmEnvironment() },
    );
    return { warnings: stderr };
  }

  /** Copies a script into the project (next to its node_modules) and returns its path. */
  async addScript(source: string, name: string): Promise<string> {
    const target = join(this.dir, name);
    await copyFile(source, target);
    return target;
  }

  /** Where each installed @bridle package came from, as package-lock.json records it. */
  async resolvedBridlePackages(): Promise<Record<string, string>> {
    const lock = JSON.parse(await readFile(join(this.dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string }>;
    };
    const found: Record<string, string> = {};
    for (const [key, entry] of Object.entries(lock.packages)) {
      const at = key.lastIndexOf("node_modules/@bridle/");
      if (at >= 0) found[key] = entry.resolved ?? "";
    }
    return found;
  }
}

/**
 * npm without the workspace's influence: a pnpm script exports npm_config_* and npm_package_* variables
 * describing the monorepo, which npm would read as its own configuration. Where to fetch from (registry,
 * proxy, cache, user config) is kept.
 */
export function npmEnvironment(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(registry|cache|userconfig|.*proxy|cafile|strict_ssl)$/i;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm|pnpm)_/i.test(key) && !keep.test(key)) continue;
    env[key] = value;
  }
  return env;
}
