import { packageBuild } from "@bridle/tooling/tsup";

// Two entries: the runner-free kit and the vitest suites. Splitting keeps the code they share (the
// scripted model, fake servers) in one chunk, so both entries use the same classes.
export default packageBuild({ entry: ["src/index.ts", "src/vitest.ts"], splitting: true });
