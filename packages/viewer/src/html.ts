// One self-contained page: the bundled script and stylesheet inline, the data in two JSON blocks (the view,
// parsed at once; the bodies, parsed when a row is first opened). The Content-Security-Policy forbids
// every fetch an exported file could make; a served page may talk to its own server only.
/// <reference path="./page-assets.d.ts" />
import { createHash } from "node:crypto";
import { PAGE_SCRIPT, PAGE_STYLE } from "virtual:bridle-viewer-page";
import type { PageData } from "./view.js";

/** JSON safe inside a <script> element: `<` is escaped, so no text in it can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageOptions {
  readonly title: string;
  /** Served by the viewer server: the page may fetch from its own origin. */
  readonly served?: boolean;
}

// Only the page's own script and stylesheet may run, named by their hashes: were some text of a session
// ever to reach the page as markup, a script in it would not execute.
const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
const SCRIPT_HASH = hashOf(PAGE_SCRIPT);
const STYLE_HASH = hashOf(PAGE_STYLE);

/** The Content-Security-Policy every page carries (also sent as a header by the server). */
export function contentSecurityPolicy(served: boolean): string {
  return [
    "default-src 'none'",
    `script-src ${SCRIPT_HASH}`,
    `style-src ${STYLE_HASH}`,
    "img-src data:",
    `connect-src ${served ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** `bodies`: each session's long texts, by session id. */
export function renderPage(
  data: PageData,
  bodies: Readonly<Record<string, readonly string[]>>,
  options: PageOptions,
): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(options.served ?? false)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<div id="app"></div>
<script type="application/json" id="bridle-view">${scriptJson(data)}</script>
<script type="application/json" id="bridle-bodies">${scriptJson(bodies)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
