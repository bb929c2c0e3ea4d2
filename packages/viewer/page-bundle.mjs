// Bundles the browser page (src/page/main.ts and its libraries, src/page/style.css) into two strings, the
// module "virtual:bridle-viewer-page" that src/html.ts inlines into every page. The build (tsdown) and the
// tests (vitest) both resolve that module through this file, so the page is never a checked-in artifact.
import { readFile } from "node:fs/promises";
import { build } from "esbuild";

const MODULE = "virtual:bridle-viewer-page";
const root = new URL("./src/page/", import.meta.url);

export async function bundlePage() {
  const result = await build({
    entryPoints: [new URL("main.ts", root).pathname],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "inline",
  });
  const script = result.outputFiles[0].text;
  const style = await readFile(new URL("style.css", root), "utf8");
  // Inlined into <script>: a "</script" inside would end the element early.
  const safeScript = script.replaceAll("</script", "<\\/script");
  return `export const PAGE_SCRIPT = ${JSON.stringify(safeScript)};\nexport const PAGE_STYLE = ${JSON.stringify(style)};\n`;
}

/** One plugin for tsdown's rolldown and vitest's vite: both take Rollup's resolveId/load hooks. */
export const pagePlugin = {
  name: "bridle-viewer-page",
  resolveId(id) {
    return id === MODULE ? `\0${MODULE}` : undefined;
  },
  load(id) {
    return id === `\0${MODULE}` ? bundlePage() : undefined;
  },
};
