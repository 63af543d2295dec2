import { afterEach, describe, expect, it } from "vitest";
import { CLEANUP_WARNING_CODE, reportCleanupFailure } from "./report-cleanup-failure.js";

describe("reportCleanupFailure", () => {
  const heard: Error[] = [];
  const listener = (warning: Error) => heard.push(warning);
  afterEach(() => {
    process.off("warning", listener);
    heard.length = 0;
  });

  it("emits a process warning with the code, the step and the cleaned, redacted message", async () => {
    process.on("warning", listener);
    reportCleanupFailure(
      "restarting the database engine",
      new Error("connect to postgres://app:s3cret@db failed\n\u001b[31mred\u001b[0m"),
      ["s3cret"],
    );
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toHaveLength(1);
    expect((heard[0] as Error & { code?: string }).code).toBe(CLEANUP_WARNING_CODE);
    expect(heard[0]?.message).toBe(
      "postgres server: restarting the database engine failed: connect to postgres://app:***@db failed [31mred [0m",
    );
  });

  it("reports a thrown non-Error as its text", async () => {
    process.on("warning", listener);
    reportCleanupFailure("closing a pool", "gone");
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard[0]?.message).toBe("postgres server: closing a pool failed: gone");
  });
});
