import { packageTests } from "@bridle/tooling/vitest";

// Packing and an npm install from the registry take a minute or two on a busy machine.
export default packageTests({ testTimeout: 360_000 });
