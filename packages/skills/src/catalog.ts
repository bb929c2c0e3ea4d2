import type { Skill } from "./skill.js";

export interface CatalogOptions {
  /** Characters of each description kept (default 300: with the name, about 100 tokens a skill). */
  readonly maxDescriptionChars?: number;
  /** Text before the list (default: how to use skills with skill_read and skill_run). */
  readonly header?: string;
}

export const DEFAULT_CATALOG_HEADER =
  "Skills: folders of instructions, scripts and references for specific tasks. When a task matches a " +
  "skill's description, call skill_read with its name first and follow the instructions it returns; " +
  "run its scripts with skill_run.";

/**
 * The compact list of skills for the system prompt: name and description only, so a large library
 * costs little until a skill is used (its body is read with skill_read).
 */
export function skillCatalog(skills: readonly Skill[], options: CatalogOptions = {}): string {
  if (skills.length === 0) return "";
  const max = options.maxDescriptionChars ?? 300;
  const lines = [options.header ?? DEFAULT_CATALOG_HEADER, "<available_skills>"];
  for (const skill of skills) lines.push(`- ${skill.name}: ${oneLine(skill.description, max)}`);
  lines.push("</available_skills>");
  return lines.join("\n");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
