import { describe, expect, it } from "vitest";
import { envValue } from "../src/index.js";

describe("envValue", () => {
  it("reads the env it is given, not the process's, and treats a blank value as unset", () => {
    const name = "BRIDLE_ENV_VALUE_TEST";
    process.env[name] = "from-process";
    try {
      expect(envValue(name, { [name]: "given" })).toBe("given");
      expect(envValue(name, { [name]: "  " })).toBeUndefined();
      expect(envValue(name, {})).toBeUndefined();
      expect(envValue(name)).toBe("from-process");
    } finally {
      delete process.env[name];
    }
  });
});
