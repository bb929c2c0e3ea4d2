export type { FilterInput } from "./filters.js";
export type { JsonlSearchOptions } from "./options.js";
export {
  createJsonlSearchTool,
  type JsonlRow,
  type JsonlSearchDetails,
  type JsonlSearchTool,
} from "./tool.js";
