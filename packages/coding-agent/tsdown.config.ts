import { packageBuild } from "@bridle/tooling/tsdown";

// Two entries: the recipe, and `@bridle/coding-agent/providers` (the provider names and descriptors alone),
// which a CLI's `--help` reads without loading the recipe's packages.
export default packageBuild({ entry: { index: "src/index.ts", providers: "src/providers.ts" } });
