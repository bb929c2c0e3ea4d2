/** A model-facing tool vocabulary. */
export type ProfileName = "generic" | "openai" | "anthropic";
export const PROFILE_NAMES: readonly ProfileName[] = Object.freeze(["generic", "openai", "anthropic"]);

/** How the model edits files: exact replace (edit_file / Edit), hashline tags, or V4A apply_patch. */
export type EditFormat = "replace" | "hashline" | "apply_patch";
export const EDIT_FORMATS: readonly EditFormat[] = Object.freeze(["replace", "hashline", "apply_patch"]);
