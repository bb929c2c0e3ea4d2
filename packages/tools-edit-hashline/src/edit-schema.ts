import { z } from "zod";

// Described once, in the tool's description: repeated in each op of the schema they cost request bytes.
const tag = z.string().min(1).max(200);
const newText = z.string().max(2_000_000);

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
    start_tag: tag,
    end_tag: tag,
    new_text: newText,
  }),
]);

export const editFileSchema = z.strictObject({
  path: z.string().min(1).describe("file"),
  edits: z.array(editSchema).min(1).max(1_000).describe("all apply or none"),
  verbatim: z.boolean().optional().describe("true: no unescaping"),
});

export type HashlineEdit = z.output<typeof editSchema>;
export type EditFileArgs = z.output<typeof editFileSchema>;
