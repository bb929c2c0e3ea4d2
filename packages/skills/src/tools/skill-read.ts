import { readFile } from "node:fs/promises";
import { type AnyTool, defineTool, ToolFailure } from "@bridle/core";
import { z } from "zod";
import type { SkillActivations } from "../activation.js";
import { listSkillFiles, readSlice, resolveInSkill, sliceLines } from "../files.js";
import { parseFrontMatter } from "../front-matter.js";
import type { SkillRegistry } from "../registry.js";

export const skillReadInputSchema = z.object({
  skill: z.string().min(1).describe("The skill's name, as listed in the skills catalog"),
  file: z
    .string()
    .min(1)
    .optional()
    .describe("A file inside the skill's folder (e.g. references/guide.md); omit to read SKILL.md"),
  offset: z.number().int().positive().optional().describe("First line to read (1-based, default 1)"),
  limit: z.number().int().positive().optional().describe("Lines to read at most (default 2000)"),
});

export interface SkillReadDetails {
  readonly skill: string;
  /** The file read, relative to the skill's folder (SKILL.md when none was named). */
  readonly file: string;
  readonly folder: string;
  readonly totalBytes: number;
  readonly nextLine: number | undefined;
  /** Beside the body only: the skill's files. */
  readonly files?: readonly string[];
}

export interface SkillReadOptions {
  /** Bytes of text one call returns at most (default 64 KiB). */
  readonly maxBytes?: number;
  /** Files listed beside the body at most (default 200). */
  readonly maxListedFiles?: number;
}

export function createSkillReadTool(
  registry: SkillRegistry,
  activations: SkillActivations,
  options: SkillReadOptions = {},
): AnyTool {
  return defineTool({
    name: "skill_read",
    description:
      "Read a skill: without `file`, its instructions (SKILL.md without the front matter) and the list of files in its folder; " +
      "with `file`, that file (a path relative to the skill's folder). Reading a skill puts it in use: its allowed-tools, " +
      "if it declares any, then limit the other tools for the rest of the run. Long files come in parts: continue with `offset`.",
    inputSchema: skillReadInputSchema,
    annotations: { read_only: true, idempotent: true },
    execute: async (args, ctx) => {
      const skill = registry.get(args.skill);
      const folder = ctx.workspace.display(skill.dir);
      const bounds = { offset: args.offset, limit: args.limit, maxBytes: options.maxBytes };
      if (args.file !== undefined && args.file !== "SKILL.md") {
        const real = await resolveInSkill(skill, args.file);
        const slice = await readSlice(real, bounds);
        activations.activate(ctx.runId, skill);
        if (slice.binary) {
          throw new ToolFailure(
            "InvalidInput",
            `${args.file} is a binary file (${slice.totalBytes} bytes); skill_read shows text only`,
          );
        }
        const details: SkillReadDetails = {
          skill: skill.name,
          file: args.file,
          folder,
          totalBytes: slice.totalBytes,
          nextLine: slice.nextLine,
        };
        return { content: slice.text + continuation(slice.nextLine, slice.totalBytes), details };
      }
      let text: string;
      try {
        text = await readFile(skill.file, "utf8");
      } catch {
        throw new ToolFailure(
          "NotFound",
          `the skill ${skill.name}'s SKILL.md is gone; the skills need reloading`,
        );
      }
      const front = parseFrontMatter(text);
      const body = front.ok ? front.body : text;
      activations.activate(ctx.runId, skill);
      const slice = sliceLines(body, bounds);
      const next = slice.nextLine;
      const listing = await listSkillFiles(skill, { maxEntries: options.maxListedFiles ?? 200 });
      const parts = [`<skill name="${skill.name}" folder="${folder}">`, slice.text.trimEnd(), "</skill>"];
      if (next !== undefined) parts.push(`[SKILL.md continues: call skill_read again with offset=${next}]`);
      if (listing.files.length > 0) {
        parts.push(
          `Files in this skill (paths relative to its folder; read them with skill_read file=…, run scripts with skill_run):`,
          ...listing.files.map((file) => `- ${file}`),
        );
        if (listing.truncated) parts.push(`- … (more files not listed)`);
      }
      if (skill.allowedTools.length > 0) {
        parts.push(
          `While this skill is in use, the only other tools allowed are: ${skill.allowedTools.join(" ")}`,
        );
      }
      const details: SkillReadDetails = {
        skill: skill.name,
        file: "SKILL.md",
        folder,
        totalBytes: Buffer.byteLength(body),
        nextLine: next,
        files: listing.files,
      };
      return { content: parts.join("\n"), details };
    },
  });
}

function continuation(next: number | undefined, totalBytes: number): string {
  return next === undefined
    ? ""
    : `\n[file continues (${totalBytes} bytes in all): call skill_read again with offset=${next}]`;
}
