import { ToolFailure } from "@bridle/core";
import { type CatalogOptions, skillCatalog } from "./catalog.js";
import { type DiscoverOptions, type DiscoveryCache, discoverSkills } from "./discover.js";
import type { DuplicateSkill, Skill, SkillWarning } from "./skill.js";

export interface SkillRegistryOptions extends DiscoverOptions {
  /** Called once per warning (a skipped skill, a duplicate name, a lowercase skill.md) as discovery finds it. */
  readonly onWarning?: (warning: SkillWarning) => void;
}

/** The skills of the configured folders, by name. Load it at start; `reload` picks up edits. */
export class SkillRegistry {
  readonly #options: SkillRegistryOptions;
  readonly #cache: DiscoveryCache = new Map();
  #byName = new Map<string, Skill>();
  #warnings: readonly SkillWarning[] = [];
  #duplicates: readonly DuplicateSkill[] = [];

  private constructor(options: SkillRegistryOptions) {
    this.#options = options;
  }

  static async load(options: SkillRegistryOptions): Promise<SkillRegistry> {
    const registry = new SkillRegistry(options);
    await registry.reload();
    return registry;
  }

  async reload(): Promise<void> {
    const found = await discoverSkills({ ...this.#options, cache: this.#cache });
    this.#byName = new Map(found.skills.map((skill) => [skill.name, skill]));
    this.#warnings = found.warnings;
    this.#duplicates = found.duplicates;
    for (const warning of found.warnings) this.#options.onWarning?.(warning);
  }

  get skills(): readonly Skill[] {
    return [...this.#byName.values()];
  }

  /** The last load's warnings (skipped skills, duplicate names, lowercase skill.md files), each naming its file. */
  get warnings(): readonly SkillWarning[] {
    return this.#warnings;
  }

  get duplicates(): readonly DuplicateSkill[] {
    return this.#duplicates;
  }

  find(name: string): Skill | undefined {
    return this.#byName.get(name);
  }

  /** The skill, or a NotFound the model can act on (it lists the names that exist). */
  get(name: string): Skill {
    const skill = this.#byName.get(name);
    if (skill) return skill;
    const names = [...this.#byName.keys()];
    const shown = names.slice(0, 30).join(", ") + (names.length > 30 ? `, … (${names.length} in all)` : "");
    throw new ToolFailure(
      "NotFound",
      names.length === 0
        ? `no skill named "${name}": no skills are installed`
        : `no skill named "${name}"; skills: ${shown}`,
    );
  }

  /** The compact list for the system prompt (about 100 tokens a skill). */
  catalog(options?: CatalogOptions): string {
    return skillCatalog(this.skills, options);
  }
}
