// Which tool vocabulary (profile) and edit format a run gets, and the tools that makes. Kept apart from
// compose.ts so the choice and its reason are one function that `bridle tools list` can show as is.
import type { AnyTool } from "@bridle/core";
import {
  type Choice,
  chooseEditFormat,
  chooseProfile,
  type EditFormat,
  type ProfileName,
  profileTools,
} from "@bridle/profiles";
import type { FsToolkit } from "@bridle/tools-fs";
import { CodingAgentError } from "./errors.js";
import type { CodingAgentSettings } from "./settings.js";

export interface ToolChoice {
  readonly profile: Choice<ProfileName>;
  readonly editFormat: Choice<EditFormat>;
}

/**
 * The settings' profile and edit format when set (flag or config), else the model family's defaults. With
 * skills the profile is generic: a skill's allowed-tools (`Bash(git status:*)`) are enforced on the generic
 * tools' names and arguments, and under other names a command restriction would not hold.
 */
export function toolChoice(
  settings: Pick<CodingAgentSettings, "provider" | "model" | "profile" | "editFormat" | "skills">,
): ToolChoice {
  if (settings.skills && settings.profile && settings.profile !== "generic") {
    throw new CodingAgentError(
      "invalid_settings",
      `--profile ${settings.profile} cannot be used with --skills: skills' allowed-tools are enforced on the generic tool names (use --profile generic)`,
    );
  }
  return {
    profile: settings.profile
      ? { value: settings.profile, reason: "set by --profile or the config" }
      : settings.skills
        ? { value: "generic", reason: "--skills: allowed-tools are enforced on the generic tool names" }
        : chooseProfile(settings.provider, settings.model),
    editFormat: settings.editFormat
      ? { value: settings.editFormat, reason: "set by --edit-format or the config" }
      : chooseEditFormat(settings.model),
  };
}

/**
 * The chosen profile's tools over these filesystem tools and this bash tool: one vocabulary, never two.
 * `plan` is an update_plan tool to name per profile (the coding overlay's), instead of the profile's own.
 */
export function profileToolset(choice: ToolChoice, fs: FsToolkit, bash: AnyTool, plan?: AnyTool): AnyTool[] {
  return profileTools({
    profile: choice.profile.value,
    editFormat: choice.editFormat.value,
    fs,
    bash,
    ...(plan ? { plan } : {}),
  });
}

/** The names of the profile's tools that declare they only read (Read, Glob, grep_files…). */
export function readOnlyNames(tools: readonly AnyTool[]): string[] {
  return tools.filter((tool) => tool.annotations?.read_only === true).map((tool) => tool.name);
}

/** Two lines for `bridle tools list`: what was chosen and why. */
export function describeChoice(choice: ToolChoice): string {
  return `profile: ${choice.profile.value} (${choice.profile.reason})\nedit format: ${choice.editFormat.value} (${choice.editFormat.reason})\n`;
}
