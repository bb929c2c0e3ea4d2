import { packageTests } from "@bridle/tooling/vitest";

// API Extractor analyses every package's declarations: a few seconds each on a busy machine.
export default packageTests({ testTimeout: 300_000 });
