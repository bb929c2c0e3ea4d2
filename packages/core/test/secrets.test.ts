import { describe, expect, it } from "vitest";
import { isSecretPath, SECRET_PATH_RULES } from "../src/index.js";

describe("the secret-path rule", () => {
  it("flags every name, prefix, suffix, key file and folder its data lists, in any case, and no template", () => {
    const rules = SECRET_PATH_RULES;
    const flagged = [
      ...rules.names,
      ...rules.names.map((name) => name.toUpperCase()),
      ...rules.namePrefixes.map((prefix) => `${prefix}local`),
      ...rules.nameSuffixes.map((suffix) => `server${suffix}`),
      "id_rsa",
      "id_ed25519_sk",
      ...rules.folders.map((folder) => `home/${folder}/config`),
    ];
    for (const path of flagged) expect(isSecretPath(path), path).toBe(true);
    for (const path of [
      ...rules.notSecret,
      "README.md",
      "src/env.ts",
      "id_rsa.pub",
      "keys.txt",
      "ssh/config",
    ]) {
      expect(isSecretPath(path), path).toBe(false);
    }
  });

  it("cannot be edited by a package that reads it", () => {
    expect(Object.isFrozen(SECRET_PATH_RULES)).toBe(true);
    expect(() => (SECRET_PATH_RULES.names as string[]).push("nothing")).toThrow(TypeError);
    expect(isSecretPath("nothing")).toBe(false);
  });
});
