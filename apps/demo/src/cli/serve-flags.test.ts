// `agentforge serve`'s duration flag (`--confirmation-ttl`).
import { describe, expect, it } from "vitest";
import { UsageError } from "../shared/usage-error.js";
import { durationFlag } from "./serve.js";

describe("durationFlag", () => {
  it.each([
    ["24h", 86_400_000],
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["7d", 604_800_000],
    ["45", 45_000],
    ["1500ms", 1500],
    ["1.5h", 5_400_000],
  ])("%s is %d ms", (value, ms) => {
    expect(durationFlag("--confirmation-ttl", value)).toBe(ms);
  });

  it("is undefined when not given, and refuses what is not a duration from 1s to 30d", () => {
    expect(durationFlag("--confirmation-ttl", undefined)).toBeUndefined();
    for (const bad of ["", "0", "500ms", "31d", "1w", "-5s", "1e3", "12 h"]) {
      expect(() => durationFlag("--confirmation-ttl", bad)).toThrow(UsageError);
    }
    expect(() => durationFlag("--confirmation-ttl", "soon")).toThrow(/--confirmation-ttl expects a duration/);
  });
});
