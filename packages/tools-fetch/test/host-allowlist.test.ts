import { describe, expect, it } from "vitest";
import { HostAllowlist } from "../src/index.js";

const allows = (entries: string[], url: string) => new HostAllowlist(entries).allows(new URL(url));

describe("HostAllowlist", () => {
  it("matches exact hosts on any port, case-insensitively", () => {
    expect(allows(["Example.com"], "https://example.COM/a")).toBe(true);
    expect(allows(["example.com"], "http://example.com:8080/")).toBe(true);
    expect(allows(["example.com"], "https://www.example.com/")).toBe(false);
    expect(allows(["example.com"], "https://example.com.evil.net/")).toBe(false);
    expect(allows(["example.com"], "https://evilexample.com/")).toBe(false);
  });

  it("matches subdomains for a wildcard, not the bare domain", () => {
    expect(allows(["*.github.com"], "https://api.github.com/")).toBe(true);
    expect(allows(["*.github.com"], "https://a.b.github.com/")).toBe(true);
    expect(allows(["*.github.com"], "https://github.com/")).toBe(false);
    expect(allows(["*.github.com"], "https://notgithub.com/")).toBe(false);
  });

  it("pins the port when one is given, default ports included", () => {
    expect(allows(["127.0.0.1:8080"], "http://127.0.0.1:8080/")).toBe(true);
    expect(allows(["127.0.0.1:8080"], "http://127.0.0.1:8081/")).toBe(false);
    expect(allows(["example.com:443"], "https://example.com/")).toBe(true);
    expect(allows(["example.com:443"], "http://example.com/")).toBe(false);
    expect(allows(["[::1]:8080"], "http://[::1]:8080/")).toBe(true);
  });

  it("normalizes international names as URLs do", () => {
    expect(allows(["bücher.example"], "https://xn--bcher-kva.example/")).toBe(true);
  });

  it("allows nothing when empty and rejects entries that are not hosts", () => {
    expect(allows([], "https://example.com/")).toBe(false);
    expect(() => new HostAllowlist(["https://example.com"])).toThrow(RangeError);
    expect(() => new HostAllowlist(["example.com/path"])).toThrow(RangeError);
    expect(() => new HostAllowlist(["user@example.com"])).toThrow(RangeError);
  });
});
