import { parseAllowedTools } from "./allowed-tools.js";
import type { SkillProblem, SkillWarningCode } from "./skill.js";

// The Agent Skills rules as the reference validator (agentskills/agentskills, skills-ref) applies them.
// Lengths count code points, as Python's len() does.

/** Characters (code points) a skill name may hold. */
export const MAX_NAME_LENGTH = 64;
/** Characters (code points) a description may hold. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Characters (code points) `compatibility` may hold. */
export const MAX_COMPATIBILITY_LENGTH = 500;

/** The only top-level front matter keys the spec allows; anything else belongs under `metadata`. */
export const ALLOWED_FRONT_MATTER_FIELDS: readonly string[] = [
  "name",
  "description",
  "license",
  "allowed-tools",
  "metadata",
  "compatibility",
];

// Letters and digits of any script (Python's str.isalnum) and hyphens.
const NAME_CHARACTERS = /^[\p{L}\p{N}-]+$/u;

/** A skill name as the spec compares it: surrounding whitespace dropped, NFKC-normalised. */
export function normalizeSkillName(name: string): string {
  return name.trim().normalize("NFKC");
}

/**
 * What breaks the spec in a parsed front matter (scalars read as strings, as skills-ref reads them).
 * `folderName` is the skill's folder, which must carry the same name.
 */
export function frontMatterProblems(
  data: Readonly<Record<string, unknown>>,
  folderName: string,
): SkillProblem[] {
  const problems: SkillProblem[] = [];
  const unknown = Object.keys(data)
    .filter((key) => !ALLOWED_FRONT_MATTER_FIELDS.includes(key))
    .sort();
  if (unknown.length > 0) {
    problems.push(
      error(
        "unknown_field",
        `unexpected front matter ${unknown.length === 1 ? "field" : "fields"} ${unknown.map(quote).join(", ")}: only ${ALLOWED_FRONT_MATTER_FIELDS.join(", ")} are allowed (put your own keys under metadata)`,
      ),
    );
  }
  if (!("name" in data)) problems.push(error("invalid_name", "missing required field `name`"));
  else problems.push(...nameProblems(data.name, folderName));
  if (!("description" in data))
    problems.push(error("invalid_description", "missing required field `description`"));
  else problems.push(...descriptionProblems(data.description));
  if ("compatibility" in data) {
    const compatibility = data.compatibility;
    if (typeof compatibility !== "string")
      problems.push(error("invalid_field", "compatibility must be a string"));
    else if (codePoints(compatibility) > MAX_COMPATIBILITY_LENGTH) {
      problems.push(
        error(
          "invalid_field",
          `compatibility is ${codePoints(compatibility)} characters; the limit is ${MAX_COMPATIBILITY_LENGTH}`,
        ),
      );
    }
  }
  const allowed = parseAllowedTools(data["allowed-tools"]);
  if ("problem" in allowed) problems.push(error("invalid_field", allowed.problem));
  return problems;
}

function nameProblems(value: unknown, folderName: string): SkillProblem[] {
  if (typeof value !== "string" || value.trim() === "") {
    return [error("invalid_name", "name must be a non-empty string")];
  }
  const name = normalizeSkillName(value);
  const shown = quote(name);
  const problems: SkillProblem[] = [];
  if (codePoints(name) > MAX_NAME_LENGTH) {
    problems.push(
      error(
        "invalid_name",
        `name ${shown} is ${codePoints(name)} characters; the limit is ${MAX_NAME_LENGTH}`,
      ),
    );
  }
  if (name !== name.toLowerCase()) problems.push(error("invalid_name", `name ${shown} must be lowercase`));
  if (name.startsWith("-") || name.endsWith("-")) {
    problems.push(error("invalid_name", `name ${shown} must not start or end with a hyphen`));
  }
  if (name.includes("--"))
    problems.push(error("invalid_name", `name ${shown} must not hold two hyphens in a row`));
  if (!NAME_CHARACTERS.test(name)) {
    problems.push(error("invalid_name", `name ${shown} may hold only letters, digits and hyphens`));
  }
  if (folderName.normalize("NFKC") !== name) {
    problems.push(error("invalid_name", `name ${shown} does not match its folder ${quote(folderName)}`));
  }
  return problems;
}

function descriptionProblems(value: unknown): SkillProblem[] {
  if (typeof value !== "string" || value.trim() === "") {
    return [error("invalid_description", "description must be a non-empty string")];
  }
  const length = codePoints(value);
  if (length > MAX_DESCRIPTION_LENGTH) {
    return [
      error(
        "invalid_description",
        `description is ${length} characters; the limit is ${MAX_DESCRIPTION_LENGTH}`,
      ),
    ];
  }
  return [];
}

function error(code: SkillWarningCode, message: string): SkillProblem {
  return { severity: "error", code, message };
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A value from the file as a message shows it: clipped, quoted, newlines and control characters escaped. */
function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
