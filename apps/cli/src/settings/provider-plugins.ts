// Providers a user adds in their own config (`"providers": ["./my-provider.mjs"]`, paths relative to that
// file): each module exports a descriptor, as the built-in provider packages do, and `--provider NAME` then
// reaches it. Loading a module runs its code, so the setting is user-only: a workspace's config never sets it.
import { pathToFileURL } from "node:url";
import type { ProviderDescriptor } from "@bridle/provider-kit";
import { CliError } from "../cli-error.js";

const NAME = /^[a-z][a-z0-9-]{0,39}$/;

export async function loadProviderModules(paths: readonly string[]): Promise<ProviderDescriptor[]> {
  const found: ProviderDescriptor[] = [];
  for (const path of paths) {
    let module: Record<string, unknown>;
    try {
      module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(`cannot load the provider module ${path}: ${(error as Error).message}`, 2);
    }
    const exported = module.default ?? module.descriptor;
    const descriptors = Array.isArray(exported) ? exported : [exported];
    if (descriptors.length === 0 || exported === undefined)
      throw new CliError(`provider module ${path}: export a provider descriptor as default`, 2);
    for (const descriptor of descriptors) {
      const problem = descriptorProblem(descriptor);
      if (problem) throw new CliError(`provider module ${path}: ${problem}`, 2);
      const checked = descriptor as ProviderDescriptor;
      if (found.some((other) => other.name === checked.name))
        throw new CliError(`provider module ${path}: a provider named "${checked.name}" is added twice`, 2);
      found.push(checked);
    }
  }
  return found;
}

function descriptorProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "its export is not a provider descriptor";
  const d = value as Record<string, unknown>;
  if (typeof d.name !== "string" || !NAME.test(d.name))
    return "name must be lowercase letters, digits and dashes";
  if (typeof d.label !== "string") return `provider "${d.name}": label must be a string`;
  if (!Array.isArray(d.keyVariables) || !d.keyVariables.every((v) => typeof v === "string"))
    return `provider "${d.name}": keyVariables must be a list of variable names`;
  if (d.keyNeeded !== "always" && d.keyNeeded !== "without-base-url" && d.keyNeeded !== "client")
    return `provider "${d.name}": keyNeeded must be "always", "without-base-url" or "client"`;
  if (d.baseUrlVariable !== undefined && typeof d.baseUrlVariable !== "string")
    return `provider "${d.name}": baseUrlVariable must be a string`;
  if (typeof d.defaultModel !== "string" || d.defaultModel === "")
    return `provider "${d.name}": defaultModel must be a model name`;
  if (typeof d.models !== "object" || d.models === null)
    return `provider "${d.name}": models must be a table`;
  if (d.modelPattern !== undefined && !(d.modelPattern instanceof RegExp))
    return `provider "${d.name}": modelPattern must be a RegExp`;
  if (typeof d.create !== "function") return `provider "${d.name}": create must be a function`;
  return undefined;
}
