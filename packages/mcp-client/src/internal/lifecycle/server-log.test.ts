import { describe, expect, it } from "vitest";
import { logLine, MAX_LOG_LINE_CHARS } from "./server-log.js";

describe("logLine", () => {
  it("formats one line per notification: level, logger, data (strings as they are, the rest as JSON)", () => {
    expect(logLine({ level: "info", logger: "db", data: "connected" })).toBe(
      "[server log] info db: connected",
    );
    expect(logLine({ level: "error", data: { code: 1, detail: "a\nb" } })).toBe(
      '[server log] error: {"code":1,"detail":"a\\nb"}',
    );
    expect(logLine({ level: "debug", data: "two\r\nlines" })).toBe("[server log] debug: two lines");
  });

  it("cuts a huge entry to a bounded line", () => {
    const line = logLine({ level: "info", data: "x".repeat(10_000) });
    expect(line.startsWith("[server log] info: xxx")).toBe(true);
    expect(line.length).toBeLessThan(MAX_LOG_LINE_CHARS + 40);
    expect(line).toMatch(/… \[\d+ characters cut\]$/);
  });
});
