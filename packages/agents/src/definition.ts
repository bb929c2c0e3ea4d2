import { BridleError, type HarnessLimitsInput, limitsSchema, type Model } from "@bridle/core";
import { z } from "zod";

/** A named subagent configuration: what the model can spawn with `agent_spawn {agent_id}`. */
export interface SubagentDefinition {
  /** The `agent_id` the model names (letters, digits, `-`, `_`). */
  readonly name: string;
  /** When to use it; shown to the model in agent_spawn's description. */
  readonly description: string;
  /** The child's system prompt (not inherited: a subagent has its own role). */
  readonly system?: string;
  /** The parent tools the child may use, by name (default: all of them). Never the agent tools. */
  readonly tools?: readonly string[];
  /** The child's model: a Model, or a key of `AgentsOptions.models` (default: the parent's model). */
  readonly model?: Model | string;
  /** The child's own budget, applied over the inherited limits (or over the defaults without them). */
  readonly limits?: HarnessLimitsInput;
  /** Run the parent's hooks in the child too (default true). */
  readonly inheritHooks?: boolean;
  /** Start from the parent's limits before applying `limits` (default true). */
  readonly inheritLimits?: boolean;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const definitionSchema = z
  .object({
    name: z.string().regex(NAME, "use 1-64 letters, digits, - or _"),
    description: z.string().trim().min(1, "a description is required"),
    system: z.string().optional(),
    tools: z.array(z.string().min(1)).optional(),
    model: z.union([z.string().min(1), z.custom<Model>(isModel, "a Model or a model name")]).optional(),
    limits: z.record(z.string(), z.unknown()).optional(),
    inheritHooks: z.boolean().optional(),
    inheritLimits: z.boolean().optional(),
  })
  .strict();

function isModel(value: unknown): value is Model {
  return typeof value === "object" && value !== null && typeof (value as Model).stream === "function";
}

/** Checks a definition; throws `invalid_config` naming `source` when it is not usable. */
export function checkDefinition(definition: unknown, source: string): SubagentDefinition {
  const parsed = definitionSchema.safeParse(definition);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(definition)"}: ${i.message}`);
    throw new BridleError("invalid_config", `${source}: ${problems.join("; ")}`);
  }
  if (parsed.data.limits) {
    const limits = limitsSchema.safeParse(parsed.data.limits);
    if (!limits.success) {
      const problems = limits.error.issues.map((i) => `${i.path.join(".") || "limits"}: ${i.message}`);
      throw new BridleError("invalid_config", `${source}: invalid limits: ${problems.join("; ")}`);
    }
  }
  return parsed.data as SubagentDefinition;
}
