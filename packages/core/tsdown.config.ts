import { packageBuild } from "@bridle/tooling/tsdown";

// Two entries: the contracts and loop, and `@bridle/core/node` (the shared file-system and process rules).
// The modules both use (BridleError, isWithin) go to one shared chunk, so `instanceof` holds across them.
export default packageBuild({ entry: { index: "src/index.ts", node: "src/node/index.ts" } });
