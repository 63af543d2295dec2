import { describe, expect, it } from "vitest";
import { UsageError } from "../shared/usage-error.js";
import { allowedHostsFor, assertServable, isCrossSiteRequest, isLoopbackHost } from "./request-guard.js";

describe("request guard", () => {
  it("knows loopback addresses", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "192.168.1.2", "::", "example.com", "127.0.0.1.nip.io"])
      expect(isLoopbackHost(host)).toBe(false);
  });

  it("refuses to serve off loopback without a token", () => {
    expect(() => assertServable("0.0.0.0", undefined)).toThrow(UsageError);
    expect(() => assertServable("0.0.0.0", undefined)).toThrow("set AGENTFORGE_API_TOKEN");
    expect(() => assertServable("0.0.0.0", "token")).not.toThrow();
    expect(() => assertServable("127.0.0.1", undefined)).not.toThrow();
  });

  it("accepts the bound address's Host values on loopback, any off loopback, or the configured list", () => {
    expect([...(allowedHostsFor("127.0.0.1", 8080, undefined) ?? [])].sort()).toEqual([
      "127.0.0.1:8080",
      "[::1]:8080",
      "localhost:8080",
    ]);
    expect(allowedHostsFor("0.0.0.0", 8080, undefined)).toBeUndefined();
    expect([...(allowedHostsFor("0.0.0.0", 8080, ["Api.Example.com"]) ?? [])]).toEqual(["api.example.com"]);
  });

  it("refuses requests a browser marks as cross-site or same-site; same-origin, none and no header pass", () => {
    for (const value of ["cross-site", "same-site", "Cross-Site", " same-site "])
      expect(isCrossSiteRequest(value)).toBe(true);
    for (const value of ["same-origin", "none", undefined, ""]) expect(isCrossSiteRequest(value)).toBe(false);
  });
});
