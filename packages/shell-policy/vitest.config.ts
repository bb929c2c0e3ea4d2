import { packageTests } from "@bridle/tooling/vitest";
import { mergeConfig } from "vitest/config";

// V8 tiering the bash grammar's wasm up to TurboFan costs ~550 MB per worker; Liftoff parses as fast here.
export default mergeConfig(packageTests(), { test: { execArgv: ["--liftoff-only"] } });
