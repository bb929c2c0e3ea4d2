import type { AnyTool } from "@bridle/core";
import { createApplyPatchTool } from "@bridle/tools-apply-patch";
import { createHashlineTools } from "@bridle/tools-edit-hashline";
import type { FsToolkit } from "@bridle/tools-fs";
import {
  claudeBash,
  claudeEdit,
  claudeGlob,
  claudeGrep,
  claudeHashlineEdit,
  claudeRead,
  claudeTodoWrite,
  claudeWrite,
} from "./anthropic.js";
import { createMultiEditTool } from "./multi-edit.js";
import type { EditFormat, ProfileName } from "./names.js";
import { codexGrepFiles, codexListDir, codexNamedRead, codexReadFile, codexShell } from "./openai.js";
import { createPlanTool } from "./plan-tool.js";

export interface ProfileToolsOptions {
  readonly profile: ProfileName;
  readonly editFormat: EditFormat;
  /** The filesystem tools; their tracker is shared by every edit tool, so a read allows a later edit. */
  readonly fs: FsToolkit;
  /** tools-shell's bash tool (`createShellTools().bash`), when the run has a shell. */
  readonly bash?: AnyTool;
  /**
   * The planning tool, in update_plan's shape (`{ explanation?, plan: [{ step, status }] }`). Default: a
   * plain one for the openai and anthropic profiles (their models expect it); generic gets none unless given.
   */
  readonly plan?: AnyTool;
  /** apply_patch's form. Default: free-form for the openai profile (a JSON fallback where unsupported), JSON otherwise. */
  readonly applyPatchForm?: "json" | "freeform";
}

/**
 * The tools of one profile, each backed by the same implementation whichever profile names it. Exactly
 * one vocabulary comes back, never two names for one capability.
 *
 * | capability | generic       | openai       | anthropic       |
 * |------------|---------------|--------------|-----------------|
 * | shell      | bash          | shell        | Bash            |
 * | read       | read_file     | read_file    | Read            |
 * | write      | write_file    | write_file*  | Write           |
 * | edit       | per format    | per format   | Edit, MultiEdit |
 * | list       | list_dir      | list_dir     | (Glob)          |
 * | find files | glob          | (grep_files) | Glob            |
 * | search     | grep          | grep_files   | Grep            |
 * | plan       | update_plan** | update_plan  | TodoWrite       |
 *
 * (*) not with apply_patch, which adds files itself. (**) only when `plan` is given.
 */
export function profileTools(options: ProfileToolsOptions): AnyTool[] {
  const { fs, editFormat } = options;
  const hashline = editFormat === "hashline" ? createHashlineTools({ tracker: fs.tracker }) : undefined;
  const applyPatch = () =>
    createApplyPatchTool({
      tracker: fs.tracker,
      form: options.applyPatchForm ?? (options.profile === "openai" ? "freeform" : "json"),
    });
  const tools: AnyTool[] = [];
  switch (options.profile) {
    case "generic": {
      const [read, edit] = hashline ?? [fs.readFile, fs.editFile];
      tools.push(
        read,
        fs.writeFile,
        editFormat === "apply_patch" ? applyPatch() : edit,
        fs.listDir,
        fs.glob,
        fs.grep,
      );
      if (options.bash) tools.push(options.bash);
      if (options.plan) tools.push(options.plan);
      break;
    }
    case "openai": {
      if (options.bash) tools.push(codexShell(options.bash));
      if (editFormat === "apply_patch") tools.push(applyPatch(), codexReadFile(fs.readFile));
      else if (hashline) tools.push(codexNamedRead(hashline[0]), hashline[1], fs.writeFile);
      else tools.push(codexReadFile(fs.readFile), fs.editFile, fs.writeFile);
      tools.push(codexListDir(fs.listDir), codexGrepFiles(fs.grep), options.plan ?? createPlanTool());
      break;
    }
    case "anthropic": {
      if (options.bash) tools.push(claudeBash(options.bash));
      if (hashline) {
        tools.push(claudeRead(hashline[0]), claudeWrite(fs.writeFile), claudeHashlineEdit(hashline[1]));
      } else {
        tools.push(claudeRead(fs.readFile), claudeWrite(fs.writeFile));
        if (editFormat === "apply_patch") tools.push(applyPatch());
        else tools.push(claudeEdit(fs.editFile), createMultiEditTool(fs.tracker));
      }
      tools.push(claudeGlob(fs.glob), claudeGrep(fs.grep), claudeTodoWrite(options.plan ?? createPlanTool()));
      break;
    }
  }
  return tools;
}
