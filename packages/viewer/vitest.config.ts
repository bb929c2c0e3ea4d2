import { packageTests } from "@bridle/tooling/vitest";
import { mergeConfig } from "vitest/config";
import { pagePlugin } from "./page-bundle.mjs";

export default mergeConfig(packageTests(), { plugins: [pagePlugin] });
