import { describe, expect, it } from "vitest";
import { htmlToText } from "../src/index.js";

describe("htmlToText", () => {
  it("keeps the readable text: headings, paragraphs, lists, links", () => {
    const html = `<!doctype html><html><head><title>T</title><style>p{color:red}</style></head>
<body><h1>JSON &amp; NaN</h1><p>Python's <code>json</code> module
   writes <b>NaN</b> by default.</p><ul><li>one</li><li>two</li></ul>
<p>See <a href="https://docs.python.org/3/library/json.html">the docs</a> or <a href="#top">top</a>.</p>
<script>alert("x")</script></body></html>`;
    expect(htmlToText(html)).toBe(
      "# JSON & NaN\n\nPython's json module\nwrites NaN by default.\n\n- one\n- two\n\nSee the docs (https://docs.python.org/3/library/json.html) or top.",
    );
  });

  it("decodes numeric and named entities and leaves unknown ones", () => {
    expect(htmlToText("<p>&#x2713; &#8212; &lt;tag&gt; &nbsp;x &bogus;</p>")).toBe("✓ — <tag> x &bogus;");
  });

  it("drops comments, scripts and styles even when they contain markup", () => {
    expect(htmlToText('<!-- <p>hidden</p> --><script>var s = "<p>no</p>";</script><p>yes</p>')).toBe("yes");
  });
});
