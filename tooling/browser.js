// Headless Chromium for page tests (the viewer, the eval report): Debian's chromium driven by playwright-core,
// so no browser download is ever needed. Private to the workspace; tests import "@bridle/tooling/browser".
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

/** The chromium binary tests use: BRIDLE_CHROMIUM when set, else Debian's /usr/bin/chromium. */
export function chromiumPath() {
  return process.env.BRIDLE_CHROMIUM || "/usr/bin/chromium";
}

function inCI() {
  return process.env.CI === "true" || process.env.CI === "1";
}

/**
 * Why a browser test must skip, or undefined when chromium is present. In CI a missing chromium is a broken
 * set-up, not a reason to skip: this throws there so the suite fails loudly instead of passing empty.
 * @returns {string | undefined}
 */
export function chromiumSkipReason() {
  const path = chromiumPath();
  if (existsSync(path)) return undefined;
  const reason = `chromium not found at ${path} (install Debian's chromium: tooling/system-deps.sh, or set BRIDLE_CHROMIUM)`;
  if (inCI()) throw new Error(`CI=true and ${reason}`);
  return reason;
}

/**
 * Launches headless Chromium. Root (containers, CI) cannot use chromium's sandbox, so --no-sandbox is added
 * only then. Shared memory goes to /tmp: a container's small /dev/shm crashes tabs of large pages.
 * @param {import("playwright-core").LaunchOptions} [options]
 * @returns {Promise<import("playwright-core").Browser>}
 */
export async function launchChromium(options = {}) {
  const args = ["--disable-dev-shm-usage", ...(options.args ?? [])];
  if (typeof process.getuid === "function" && process.getuid() === 0) args.push("--no-sandbox");
  return chromium.launch({ headless: true, ...options, executablePath: chromiumPath(), args });
}
