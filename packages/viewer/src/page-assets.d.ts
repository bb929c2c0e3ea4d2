// The page's script and stylesheet, bundled from src/page by page-bundle.mjs when this package is built
// (tsdown) or tested (vitest): see those configs.
declare module "virtual:bridle-viewer-page" {
  export const PAGE_SCRIPT: string;
  export const PAGE_STYLE: string;
}
