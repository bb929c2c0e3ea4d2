import { isSecretPath } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { componentMayMatchSecret, globMayMatchSecret } from "../src/reach.js";

// The pattern check must agree with core's secret rule: every name a pattern could match that the rule
// covers makes it ask, and patterns that cannot reach one stay allowed.

describe("which patterns could match a secret", () => {
  it.each([
    ".e*",
    ".[e]nv",
    ".en?",
    "*.pem",
    "id_*",
    "*",
    "config/*",
    ".*",
    "*.env",
    "[!x]d_rsa",
    ".env.*",
    "cred*",
    "*.json",
    "secrets.y*ml",
    ".s*/x",
    "*/.env",
    "*m",
  ])("%s could", (pattern) => {
    expect(globMayMatchSecret(pattern)).toBe(true);
  });

  it.each(["*.ts", "src/*.ts", "*.md", "[ab].ts", "test/*.test.ts", "*.tsx", "docs/*.md", "a*.ts"])(
    "%s could not",
    (pattern) => {
      expect(globMayMatchSecret(pattern)).toBe(false);
    },
  );

  it("flags every example core's rule covers", () => {
    for (const name of [
      ".env",
      ".env.local",
      "prod.env",
      ".netrc",
      "id_ed25519_sk",
      "x.keystore",
      "credentials",
    ]) {
      expect(isSecretPath(`/w/${name}`), name).toBe(true);
      expect(componentMayMatchSecret(name.replace(/.$/, "?"), false), name).toBe(true);
    }
  });
});
