import { createRequire } from "node:module";
import { Language, type Node, Parser, type Tree } from "web-tree-sitter";

export type { Node as SyntaxNode } from "web-tree-sitter";

let loading: Promise<Parser> | undefined;

/**
 * The bash parser, loaded once per process. The grammar is the .wasm that ships inside the
 * tree-sitter-bash package (ABI 15, which web-tree-sitter 0.25 loads), so no native build is needed.
 */
export function loadBashParser(): Promise<Parser> {
  loading ??= (async () => {
    await Parser.init();
    const require = createRequire(import.meta.url);
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
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
