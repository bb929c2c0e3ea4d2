export interface JsonlSearchOptions {
  /** ripgrep binary to use; otherwise @vscode/ripgrep's, then `rg` on PATH (as tools-fs finds it). */
  readonly ripgrepPath?: string;
  /** Rows returned when the model gives no limit, and the most it may ask for. Default 20 and 200. */
  readonly defaultRows?: number;
  readonly maxRows?: number;
  /** Characters of one string value shown before it is cut to a snippet. Default 300. */
  readonly snippetChars?: number;
  /** Characters of one rendered row. Default 2,000. */
  readonly rowChars?: number;
  /** Characters of the whole result. Default 40,000. */
  readonly maxOutputChars?: number;
  /** Lines longer than this many bytes are counted and named, never parsed. Default 4 MiB. */
  readonly maxLineBytes?: number;
  /** The search stops and returns what it found after this long. Default 120 s. */
  readonly timeoutMs?: number;
}

export type JsonlSearchSettings = Required<Omit<JsonlSearchOptions, "ripgrepPath">> & {
  readonly ripgrepPath?: string;
};

export function resolveSettings(options: JsonlSearchOptions): JsonlSearchSettings {
  const settings: JsonlSearchSettings = {
    defaultRows: options.defaultRows ?? 20,
    maxRows: options.maxRows ?? 200,
    snippetChars: options.snippetChars ?? 300,
    rowChars: options.rowChars ?? 2_000,
    maxOutputChars: options.maxOutputChars ?? 40_000,
    maxLineBytes: options.maxLineBytes ?? 4 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 120_000,
    ...(options.ripgrepPath === undefined ? {} : { ripgrepPath: options.ripgrepPath }),
  };
  for (const [key, value] of Object.entries(settings)) {
    if (typeof value === "number" && !(Number.isInteger(value) && value > 0)) {
      throw new RangeError(`createJsonlSearchTool: ${key} must be a positive integer, got ${value}`);
    }
  }
  if (settings.defaultRows > settings.maxRows) {
    throw new RangeError("createJsonlSearchTool: defaultRows must not exceed maxRows");
  }
  return settings;
}
