/** A slip the parser or matcher forgave, named so the model (and the person reading the log) sees it. */
export type ToleranceKind =
  | "heredoc_wrapper"
  | "markdown_fence"
  | "crlf_patch"
  | "marker_whitespace"
  | "missing_first_hunk_header"
  | "blank_context_line"
  | "context_trailing_whitespace"
  | "context_punctuation"
  | "appended_without_context";

export interface Tolerance {
  readonly kind: ToleranceKind;
  /** The file it concerns, as the patch names it (absent for the patch's wrapper). */
  readonly path?: string;
  /** 1-based line of the patch where it applied. */
  readonly patchLine?: number;
}

const SAYS: Record<ToleranceKind, string> = {
  heredoc_wrapper: "removed the shell heredoc (apply_patch <<'EOF' … EOF) around the patch",
  markdown_fence: "removed the markdown code fence around the patch",
  crlf_patch: "read the patch's CRLF line breaks as LF",
  marker_whitespace: "ignored whitespace around a *** or @@ marker line",
  missing_first_hunk_header: "read the lines before the first @@ as its first chunk",
  blank_context_line: "read an empty line inside a chunk as an empty context line",
  context_trailing_whitespace: "matched context ignoring trailing whitespace",
  context_punctuation: "matched context treating Unicode dashes, quotes and spaces as ASCII",
  appended_without_context:
    "a chunk that only adds lines and names no place was appended at the end of the file, as Codex does; give it an @@ line or context to put it elsewhere",
};

export function describeTolerance(tolerance: Tolerance): string {
  const where = [
    tolerance.path,
    tolerance.patchLine === undefined ? undefined : `patch line ${tolerance.patchLine}`,
  ].filter((part) => part !== undefined);
  return where.length > 0 ? `${SAYS[tolerance.kind]} (${where.join(", ")})` : SAYS[tolerance.kind];
}
