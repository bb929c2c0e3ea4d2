import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Node, Parser, Tree } from "web-tree-sitter";

export type { Node as SyntaxNode } from "web-tree-sitter";

let loading: Promise<Parser> | undefined;

/**
 * The grammar: tree-sitter-bash's .wasm (ABI 15, which web-tree-sitter 0.25 loads), copied into dist/ by
 * the build so an install needs neither the tree-sitter-bash package nor its native build. Run from
 * source (tests), it is the dev dependency's copy.
 */
function grammarPath(): string {
  const shipped = fileURLToPath(new URL("./tree-sitter-bash.wasm", import.meta.url));
  if (existsSync(shipped)) return shipped;
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** The bash parser, loaded once per process. */
export function loadBashParser(): Promise<Parser> {
  loading ??= (async () => {
    // Imported here, not at the top: a line of plain words is judged without the grammar, so a start
    // (and a run whose commands are all plain) need not load its runtime.
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    const language = await Language.load(grammarPath());
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** Parse, hand the tree to `use`, and free the tree's wasm memory whatever happens. */
export function withTree<T>(parser: Parser, source: string, use: (root: Node) => T): T | undefined {
  const tree: Tree | null = parser.parse(source);
  if (!tree) return undefined;
  try {
    return use(tree.rootNode);
  } finally {
    tree.delete();
  }
}
