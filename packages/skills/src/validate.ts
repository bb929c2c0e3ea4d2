/** The Agent Skills rules for `name`: what a model and a folder can both carry. */
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why a skill name breaks the spec's rules, or undefined when it is valid. */
export function nameProblem(name: unknown, folderName: string): string | undefined {
  if (typeof name !== "string" || name.length === 0) return "missing required field `name`";
  if (name.length > MAX_NAME_LENGTH) return `name is longer than ${MAX_NAME_LENGTH} characters`;
  if (!NAME.test(name)) {
    return `name "${clip(name)}" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen`;
  }
  if (name !== folderName) return `name "${name}" does not match its folder "${folderName}"`;
  return undefined;
}

export function descriptionProblem(description: unknown): string | undefined {
  if (description === undefined || description === null) return "missing required field `description`";
  if (typeof description !== "string") return "description must be a string";
  if (description.trim() === "") return "description is empty";
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    return `description is longer than ${MAX_DESCRIPTION_LENGTH} characters`;
  }
  return undefined;
}

export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
