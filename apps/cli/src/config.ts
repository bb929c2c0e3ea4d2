import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import type { CliFlags } from "./args.js";
import { CliError } from "./cli-error.js";

export const DEFAULT_MODELS = {
  openai: "gpt-5-mini",
  "openai-chat": "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-6",
} as const;

const settingsSchema = z
  .object({
    provider: z.enum(["openai", "openai-chat", "anthropic"]).default("openai"),
    model: z.string().min(1).optional(),
    baseUrl: z.url().optional(),
    cwd: z.string().min(1).optional(),
    session: z.string().min(1).optional(),
    resume: z.string().min(1).optional(),
    store: z.enum(["jsonl", "sqlite"]).default("jsonl"),
    storeDir: z.string().min(1).optional(),
    maxTurns: z.coerce.number().int().positive().max(10_000).default(50),
    editFormat: z.enum(["hashline", "replace"]).default("replace"),
    sandbox: z.enum(["off", "bwrap"]).default("off"),
    mcp: z.string().min(1).optional(),
    skills: z.string().min(1).optional(),
    yes: z.boolean().default(false),
    json: z.boolean().default(false),
  })
  .strict();

export type Settings = Omit<z.output<typeof settingsSchema>, "model" | "cwd" | "storeDir"> & {
  readonly model: string;
  /** Absolute workspace root. */
  readonly cwd: string;
  /** Absolute folder holding the session store. */
  readonly storeDir: string;
  /** Which config files were read, for `--help`-style diagnostics. */
  readonly configFiles: readonly string[];
};

const CONFIG_NAMES = ["bridle.config.json", "bridle.config.yaml", "bridle.config.yml"];

/** Settings from, in rising precedence: the user's config, the project's config, the flags. */
export async function loadSettings(flags: CliFlags, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const cwd = resolve(flags.cwd ?? process.cwd());
  const files: string[] = [];
  const layers: Record<string, unknown>[] = [];
  if (flags.config) {
    layers.push(await readConfig(resolve(flags.config), true));
    files.push(resolve(flags.config));
  } else {
    const userDir = join(env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "bridle");
    for (const dir of [userDir, cwd]) {
      for (const name of CONFIG_NAMES) {
        const layer = await readConfig(join(dir, name), false);
        if (layer) {
          layers.push(layer);
          files.push(join(dir, name));
          break;
        }
      }
    }
  }
  const { config: _ignored, at: _at, ...flagSettings } = flags;
  const merged = Object.assign({}, ...layers, flagSettings);
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "config"}: ${issue.message}`,
    );
    throw new CliError(`invalid settings (${files.join(", ") || "flags"}): ${problems.join("; ")}`, 2);
  }
  const settings = parsed.data;
  const dataHome = env.XDG_DATA_HOME ?? join(homedir(), ".local", "share");
  return {
    ...settings,
    model: settings.model ?? DEFAULT_MODELS[settings.provider],
    cwd: settings.cwd ? resolve(settings.cwd) : cwd,
    storeDir: resolve(cwd, settings.storeDir ?? join(dataHome, "bridle")),
    configFiles: files,
  };
}

async function readConfig(path: string, required: true): Promise<Record<string, unknown>>;
async function readConfig(path: string, required: false): Promise<Record<string, unknown> | undefined>;
async function readConfig(path: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read config ${path}: ${(error as Error).message}`, 2);
  }
  let value: unknown;
  try {
    value = path.endsWith(".json") ? JSON.parse(text) : (await import("yaml")).parse(text);
  } catch (error) {
    throw new CliError(
      `config ${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`,
      2,
    );
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new CliError(`config ${path} must hold an object`, 2);
  // The file may spell keys as the flags do (base-url) or in camelCase (baseUrl).
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  );
}
