import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PACKAGE_VERSION } from "../src/internal/shared/package-version.js";

describe("clientInfo.version", () => {
  it("is this package's version from package.json (defined at build and test time, never hard-coded)", () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(PACKAGE_VERSION).toBe(version);
  });
});
