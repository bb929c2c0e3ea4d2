// Pins one provider's rows of models.dev (https://github.com/anomalyco/models.dev) as a dated JSON copy
// that an adapter's model table is built from. Run it by hand when the table should move:
//   node scripts/pin-models-dev.ts <models.dev git dir> <commit> <provider> <out.json>
// Rows are the provider's TOML files merged over their `base_model` (provider fields win, nested tables
// whole, `base_model_omit` paths removed). Only models a coding agent can use are kept: text out and
// tool calls. Only the fields the table needs are stored, under models.dev's own names.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { parse } from "smol-toml";

type Toml = Record<string, unknown>;

const [gitDir, commit, provider, out] = process.argv.slice(2);
if (!gitDir || !commit || !provider || !out) {
  console.error("usage: node scripts/pin-models-dev.ts <models.dev git dir> <commit> <provider> <out.json>");
  process.exit(2);
}
const git = (...args: string[]) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8" });
const sha = git("rev-parse", `${commit}^{commit}`).trim();
const date = git("show", "-s", "--format=%cd", "--date=format-local:%Y-%m-%d", sha).trim();
const read = (path: string): Toml => parse(git("show", `${sha}:${path}`)) as Toml;

function merged(file: Toml): Toml {
  const base = typeof file.base_model === "string" ? read(`models/${file.base_model}.toml`) : {};
  const row: Toml = { ...base, ...file };
  for (const path of (file.base_model_omit as string[] | undefined) ?? []) {
    const [table, key] = path.split(".");
    const inner = table ? row[table] : undefined;
    if (key && inner && typeof inner === "object") {
      const { [key]: _, ...rest } = inner as Toml;
      row[table as string] = rest;
    } else if (table) delete row[table];
  }
  return row;
}

function pick(row: Toml): Toml {
  const cost = row.cost as Toml | undefined;
  const limit = row.limit as Toml;
  const modalities = row.modalities as { input: string[]; output: string[] };
  return {
    attachment: row.attachment === true,
    reasoning: row.reasoning === true,
    tool_call: row.tool_call === true,
    ...(typeof row.structured_output === "boolean" ? { structured_output: row.structured_output } : {}),
    ...(cost
      ? {
          cost: Object.fromEntries(
            ["input", "output", "cache_read", "cache_write"].flatMap((key) =>
              typeof cost[key] === "number" ? [[key, cost[key]]] : [],
            ),
          ),
        }
      : {}),
    limit: { context: limit.context, output: limit.output },
    modalities: { input: modalities.input, output: modalities.output },
  };
}

const folder = `providers/${provider}/models`;
const models: Record<string, Toml> = {};
for (const name of git("ls-tree", "--name-only", `${sha}:${folder}`).split("\n").sort()) {
  if (!name.endsWith(".toml")) continue;
  const row = pick(merged(read(`${folder}/${name}`)));
  const output = (row.modalities as { output: string[] }).output;
  if (!row.tool_call || !output.includes("text")) continue;
  models[name.slice(0, -".toml".length)] = row;
}
const copy = { source: "https://github.com/anomalyco/models.dev", commit: sha, date, provider, models };
writeFileSync(out, `${JSON.stringify(copy, null, 2)}\n`);
console.log(`${out}: ${Object.keys(models).length} ${provider} models from models.dev ${sha} (${date})`);
