import { describe, expect, it } from "vitest";
import { formatLimit, formatSize, jsonSize, ResponseBudget } from "./response-budget.js";

describe("response sizes", () => {
  it("formatSize prints like the reference server", () => {
    expect([0, 1, 1023, 1024, 1536, 1048576, 5 * 1024 ** 4, 3 * 1024 ** 5].map(formatSize)).toEqual([
      "0 B",
      "1 B",
      "1023 B",
      "1.00 KB",
      "1.50 KB",
      "1.00 MB",
      "5.00 TB",
      "3072.00 TB",
    ]);
  });
  it("jsonSize counts escapes and UTF-8 bytes", () => {
    expect(jsonSize("abc")).toBe(3);
    expect(jsonSize('a"\n')).toBe(5);
    expect(jsonSize("é")).toBe(2);
    expect(jsonSize("\u0001")).toBe(6);
    expect(jsonSize("\\")).toBe(2);
    expect(jsonSize("\u007f")).toBe(1);
    expect(jsonSize("😀")).toBe(4);
    expect(jsonSize("\ud800")).toBe(6);
    expect(jsonSize("[FILE] plain-ascii.txt 1.00 KB")).toBe(30);
  });
  it("ResponseBudget refuses what does not fit with the reserve", () => {
    const budget = new ResponseBudget(10);
    expect(budget.tryAdd("12345")).toBe(true);
    expect(budget.tryAdd("1234", 2)).toBe(false);
    expect(budget.tryAdd("123", 2)).toBe(true);
    expect(budget.remaining).toBe(2);
    expect(formatLimit(1024 * 1024)).toBe("1 MiB");
    expect(formatLimit(4096)).toBe("4 KiB");
    expect(formatLimit(1000)).toBe("1,000 bytes");
  });
});
