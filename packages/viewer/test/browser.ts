// Headless Chromium for the page tests, with the network cut off: every request that is not to the page
// itself (a file:// export, or the viewer server's origin) is aborted and recorded, and so is every
// Content-Security-Policy violation, so a test can assert that none was even attempted.
import type { Browser, Page } from "playwright-core";

export interface OfflinePage {
  readonly page: Page;
  /** URLs the page tried to reach outside what it may. */
  readonly blocked: string[];
  violations(): Promise<string[]>;
}

export async function offlinePage(browser: Browser, allowedOrigin?: string): Promise<OfflinePage> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const blocked: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (
      url.startsWith("file:") ||
      url.startsWith("data:") ||
      (allowedOrigin && url.startsWith(`${allowedOrigin}/`))
    ) {
      return route.continue();
    }
    blocked.push(url);
    return route.abort("blockedbyclient");
  });
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener("securitypolicyviolation", (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  page.on("request", (request) => {
    const url = request.url();
    if (
      !url.startsWith("file:") &&
      !url.startsWith("data:") &&
      !(allowedOrigin && url.startsWith(`${allowedOrigin}/`))
    ) {
      if (!blocked.includes(url)) blocked.push(url);
    }
  });
  return {
    page,
    blocked,
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
  };
}

/**
 * What a screenshot shows, measured in a blank page's canvas: the share of pixels that are not background
 * white, and how many distinct colours there are. A blank or all-white render fails both.
 */
export async function pixelStats(browser: Browser, png: Buffer): Promise<{ inked: number; colours: number }> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const ctx = canvas.getContext("2d");
      if (!ctx) throw new Error("no 2d context");
      ctx.drawImage(image, 0, 0);
      const { data } = ctx.getImageData(0, 0, image.width, image.height);
      let inked = 0;
      const colours = new Set<number>();
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b] = [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0];
        if (r < 240 || g < 240 || b < 240) inked++;
        if (colours.size < 10_000) colours.add((r << 16) | (g << 8) | b);
      }
      return { inked: inked / (data.length / 4), colours: colours.size };
    }, png.toString("base64"));
  } finally {
    await page.close();
  }
}

/** Texts of the elements matching `selector` that are inside the viewport. */
export function visibleTexts(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    for (const el of document.querySelectorAll(sel)) {
      const box = el.getBoundingClientRect();
      if (box.bottom > 0 && box.top < window.innerHeight && box.width > 0 && box.height > 0) {
        out.push((el as HTMLElement).textContent);
      }
    }
    return out;
  }, selector);
}
