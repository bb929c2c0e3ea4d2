import type { DeferredTools } from "./deferred-tools.js";
import type { Message } from "./messages.js";
import type { ToolSchema } from "./model.js";
import { toolSchemaOf } from "./schema.js";
import type { AnyTool } from "./tool.js";

/**
 * Tools that join (or leave) after a harness was built: MCP servers still connecting, say. The harness
 * reads `tools()` before every model request, so what a source offers by then is offered that turn; a
 * source never holds a request up, so `tools()` answers at once with what it has.
 */
export interface ToolSource {
  /** The tools to offer now. Called before each model request: answer at once, never wait. */
  tools(): readonly AnyTool[];
  /**
   * What changed since the last call (a server joined, one failed), recorded on the run that takes it as
   * `fact` events. Each fact is taken once, by whichever run asks first.
   */
  takeFacts?(): readonly { readonly kind: string; readonly data: unknown }[];
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * One run's view of its tools: the harness's own, fixed at construction, what its sources offer at each
 * model request, and the deferred tools the model has found so far (appended in the order found, so the
 * request's earlier bytes never change). A source's tool never replaces one already offered under the
 * same name.
 */
export class RunTools {
  readonly #fixed: ReadonlyMap<string, AnyTool>;
  readonly #fixedSchemas: readonly ToolSchema[];
  readonly #sources: readonly ToolSource[];
  #current: ReadonlyMap<string, AnyTool>;
  #schemas: readonly ToolSchema[];
  // Each source tool's schema is computed once, and each refused name is told once per run.
  readonly #schemaOf = new WeakMap<AnyTool, ToolSchema>();
  readonly #refused = new Set<string>();
  readonly #deferred: DeferredTools | undefined;
  /** Deferred tools found by this run or the history it continues; never shrinks within a run. */
  readonly #found = new Set<string>();

  constructor(
    fixed: ReadonlyMap<string, AnyTool>,
    schemas: readonly ToolSchema[],
    sources: readonly ToolSource[],
    deferred?: DeferredTools,
  ) {
    this.#fixed = fixed;
    this.#fixedSchemas = schemas;
    this.#sources = sources;
    this.#deferred = deferred;
    this.#current = deferred ? this.#withDeferred(fixed) : fixed;
    this.#schemas = schemas;
  }

  /** The tools calls are looked up in: as of the last `refresh`. */
  get map(): ReadonlyMap<string, AnyTool> {
    return this.#current;
  }

  /** What the model is offered: the schemas given at construction (final_result included), then the sources'. */
  get schemas(): readonly ToolSchema[] {
    return this.#schemas;
  }

  /**
   * Reads every source again, and the deferred tools found in `messages` (the run's transcript). Returns
   * the facts the sources had for this run, and a fact for each tool a source offered that could not be
   * added (an invalid or taken name).
   */
  refresh(messages: readonly Message[] = []): { kind: string; data: unknown }[] {
    const deferred = this.#deferred;
    if (this.#sources.length === 0 && !deferred) return [];
    const facts: { kind: string; data: unknown }[] = [];
    const current = new Map(this.#fixed);
    const added: ToolSchema[] = [];
    const reserved = new Set(this.#fixedSchemas.map((schema) => schema.name));
    for (const name of deferred?.names ?? []) reserved.add(name);
    for (const source of this.#sources) {
      for (const fact of source.takeFacts?.() ?? []) facts.push({ kind: fact.kind, data: fact.data });
      for (const tool of source.tools()) {
        const problem = !TOOL_NAME.test(tool.name)
          ? `must match ${TOOL_NAME.source}`
          : current.has(tool.name) || reserved.has(tool.name)
            ? "is already taken by another tool"
            : undefined;
        if (problem) {
          if (!this.#refused.has(tool.name)) {
            this.#refused.add(tool.name);
            facts.push({
              kind: "tool_source.refused",
              data: { tool: tool.name, reason: `the name ${problem}` },
            });
          }
          continue;
        }
        current.set(tool.name, tool);
        added.push(this.#schema(tool));
      }
    }
    if (deferred) {
      deferred.collectFound(messages, this.#found);
      for (const name of this.#found) {
        const tool = deferred.tool(name);
        if (tool) added.push(this.#schema(tool));
      }
    }
    this.#current = deferred ? this.#withDeferred(current) : current;
    this.#schemas = added.length === 0 ? this.#fixedSchemas : [...this.#fixedSchemas, ...added];
    return facts;
  }

  #schema(tool: AnyTool): ToolSchema {
    let schema = this.#schemaOf.get(tool);
    if (!schema) {
      schema = toolSchemaOf(tool);
      this.#schemaOf.set(tool, schema);
    }
    return schema;
  }

  /** Every deferred tool is callable: the found ones run, the others answer how to find them. */
  #withDeferred(tools: ReadonlyMap<string, AnyTool>): ReadonlyMap<string, AnyTool> {
    const deferred = this.#deferred;
    if (!deferred) return tools;
    const all = new Map(tools);
    for (const name of deferred.names) {
      const tool = deferred.callable(name, this.#found);
      if (tool) all.set(name, tool);
    }
    return all;
  }
}
