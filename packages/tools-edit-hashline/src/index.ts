export { type EditFileArgs, editFileSchema, editSchema, type HashlineEdit } from "./edit-schema.js";
export type { HashlineEditDetails } from "./edit-tool.js";
export type { HashlineOptions } from "./options.js";

export { type HashlineReadDetails, readFileSchema } from "./read-tool.js";
export { hashline, lineTag, type TextEncodingName } from "./tag.js";
export { createHashlineTools } from "./toolkit.js";
