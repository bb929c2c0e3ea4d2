// Session pages in a browser, for the tests that open them: an offline page, and `bridle view` started
// from the built CLI with its URL.
import { type ChildProcess, spawn } from "node:child_process";
import type { Browser, Page } from "playwright-core";
import { CLI, NODE_FLAGS } from "./cli-harness.js";

/** A page on which every request that is not the page's own (file:, data:, `origin`) is aborted. */
export async function offlinePage(
  browser: Browser,
  options: { readonly origin?: string; readonly height?: number } = {},
): Promise<Page> {
  const { origin, height = 800 } = options;
  const context = await browser.newContext({ viewport: { width: 1200, height } });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:") || (origin && url.startsWith(`${origin}/`)))
      return route.continue();
    return route.abort("blockedbyclient");
  });
  return context.newPage();
}

/** `bridle view` in `cwd`: the process (the caller kills it) and the URL it prints, token included. */
export function startView(
  cwd: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, "view"], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const found = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/)$/m.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.on("exit", (code) => reject(new Error(`bridle view exited ${code}`)));
  });
  return { child, url };
}
