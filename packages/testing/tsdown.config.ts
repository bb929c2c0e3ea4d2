import { packageBuild } from "@bridle/tooling/tsdown";

// Two entries: the runner-free kit and the vitest suites. The code they share (the scripted model, fake
// servers) goes to one chunk, so both entries use the same classes.
export default packageBuild({ entry: ["src/index.ts", "src/vitest.ts"] });
