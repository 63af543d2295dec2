import { describe, expect, it } from "vitest";
import { suggestName } from "./suggest-name.js";

describe("suggestName", () => {
  it("finds a typo, a missing letter and a case slip", () => {
    expect(suggestName("filesytem", ["local-tools", "filesystem"])).toBe("filesystem");
    expect(suggestName("helpr", ["helper", "docs"])).toBe("helper");
    expect(suggestName("Docs", ["docs"])).toBe("docs");
  });

  it("suggests nothing when nothing is close, or the name is a candidate", () => {
    expect(suggestName("postgres", ["filesystem", "local-tools"])).toBeUndefined();
    expect(suggestName("docs", ["docs", "doc"])).toBeUndefined();
    expect(suggestName("ab", ["xy"])).toBeUndefined();
    expect(suggestName("", ["a"])).toBeUndefined();
  });

  it("prefers the closest candidate", () => {
    expect(suggestName("memry", ["memory-x", "memory"])).toBe("memory");
  });
});
