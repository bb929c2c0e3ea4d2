import { z } from "zod";

const tag = z.string().min(1).max(200).describe("an 8-hex-character tag from read_file, e.g. 3f9a0b1c");
const newText = z
  .string()
  .max(2_000_000)
  .describe("the new line(s); separate several lines with \\n; one trailing \\n is ignored");

export const editSchema = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("replace_line"),
    tag,
    new_text: newText,
  }),
  z.strictObject({
    op: z.literal("insert_after"),
    tag,
    new_text: newText,
  }),
  z.strictObject({
    op: z.literal("delete_line"),
    tag,
  }),
  z.strictObject({
    op: z.literal("replace_range"),
    start_tag: tag.describe("tag of the first line to replace"),
    end_tag: tag.describe("tag of the last line to replace (inclusive)"),
    new_text: newText.describe("the lines that take the range's place; an empty string deletes the range"),
  }),
]);

export const editFileSchema = z.strictObject({
  path: z.string().min(1).describe("the file to edit, relative to the workspace root"),
  edits: z
    .array(editSchema)
    .min(1)
    .max(1_000)
    .describe("all edits for this file, every tag taken from the same read; applied together or not at all"),
  verbatim: z
    .boolean()
    .optional()
    .describe(
      "true: write new_text as sent even if it looks JSON-escaped twice or begins with a read_file line prefix",
    ),
});

export type HashlineEdit = z.output<typeof editSchema>;
export type EditFileArgs = z.output<typeof editFileSchema>;
