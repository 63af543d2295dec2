import { describe, expect, it } from "vitest";
import { clientKeyOf } from "./client-key.js";

describe("clientKeyOf", () => {
  it("exempts loopback in every spelling", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "::FFFF:127.0.0.2"]) {
      expect(clientKeyOf(address)).toBeUndefined();
    }
  });

  it("keys IPv4 (also IPv4-mapped) by address", () => {
    expect(clientKeyOf("192.0.2.7")).toBe("192.0.2.7");
    expect(clientKeyOf("::ffff:192.0.2.7")).toBe("192.0.2.7");
  });

  it("keys IPv6 by its /64, whatever the spelling", () => {
    const key = "2001:db8:0:1::/64";
    expect(clientKeyOf("2001:db8:0:1::1")).toBe(key);
    expect(clientKeyOf("2001:0db8:0000:0001:ffff:1:2:3")).toBe(key);
    expect(clientKeyOf("2001:DB8:0:1:a::b%eth0")).toBe(key);
    expect(clientKeyOf("2001:db8:0:2::1")).not.toBe(key);
    expect(clientKeyOf("fe80::1")).toBe("fe80:0:0:0::/64");
    expect(clientKeyOf("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
  });

  it("gives unknown and unparsable addresses a key of their own, never the loopback exemption", () => {
    expect(clientKeyOf(undefined)).toBe("unknown");
    expect(clientKeyOf("")).toBe("unknown");
    expect(clientKeyOf("1:2:3")).toBe("1:2:3");
  });
});
