const DROPPED = /<(script|style|noscript|template|svg|head|iframe)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const BLOCK =
  /<\/?(p|div|section|article|main|header|footer|nav|aside|table|thead|tbody|tr|ul|ol|dl|dt|dd|blockquote|pre|figure|figcaption|form|hr|h[1-6])\b[^>]*>/gi;
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
};

/**
 * Readable text from an HTML page, for a model: scripts, styles and the head dropped, headings and list
 * items marked, links kept as `text (url)`, blocks on their own lines, entities decoded, runs of blank
 * lines collapsed. Not a browser: it reads the markup as written, which is what a fetch tool gets.
 */
export function htmlToText(html: string): string {
  let text = html.replace(/<!--[\s\S]*?-->/g, "").replace(DROPPED, "");
  text = text.replace(/<h([1-6])\b[^>]*>/gi, (_match, level: string) => `\n\n${"#".repeat(Number(level))} `);
  text = text.replace(/<li\b[^>]*>/gi, "\n- ");
  text = text.replace(/<br\s*\/?>/gi, "\n");
  text = text.replace(/<(td|th)\b[^>]*>/gi, " | ");
  text = text.replace(
    /<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi,
    (...groups) => {
      const href = (groups[2] ?? groups[3] ?? groups[4] ?? "") as string;
      const label = (groups[5] as string).replace(/<[^>]*>/g, "").trim();
      if (!label) return "";
      return href && !href.startsWith("#") && !href.startsWith("javascript:") && href !== label
        ? `${label} (${href})`
        : label;
    },
  );
  text = text.replace(BLOCK, "\n\n").replace(/<[^>]*>/g, "");
  text = decodeEntities(text);
  return text
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] === "#") {
      const code =
        body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED[body.toLowerCase()] ?? entity;
  });
}
