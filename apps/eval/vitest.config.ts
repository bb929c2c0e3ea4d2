import { packageTests } from "@bridle/tooling/vitest";
import { mergeConfig } from "vitest/config";
// Tests run @bridle/viewer from its source, whose page script is a virtual module its own plugin builds.
import { pagePlugin } from "../../packages/viewer/page-bundle.mjs";

export default mergeConfig(packageTests(), { plugins: [pagePlugin] });
