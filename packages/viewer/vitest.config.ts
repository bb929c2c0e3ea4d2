import { packageTests } from "@bridle/tooling/vitest";
import { mergeConfig } from "vitest/config";
import { vitePagePlugin } from "./page-bundle.mjs";

export default mergeConfig(packageTests({ testTimeout: 60_000 }), { plugins: [vitePagePlugin] });
