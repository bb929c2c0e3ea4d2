import type { Browser, LaunchOptions } from "playwright-core";

/** The chromium binary tests use: BRIDLE_CHROMIUM when set, else Debian's /usr/bin/chromium. */
export declare function chromiumPath(): string;
/** Why a browser test must skip (chromium absent), or undefined. Throws instead when CI=true. */
export declare function chromiumSkipReason(): string | undefined;
/** Headless Chromium (--no-sandbox when running as root). */
export declare function launchChromium(options?: LaunchOptions): Promise<Browser>;
