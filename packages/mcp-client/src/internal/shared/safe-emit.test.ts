import { EventEmitter } from "eventemitter3";
import { describe, expect, it } from "vitest";
import { safeEmit } from "./safe-emit.js";

describe("safeEmit", () => {
  it("calls every listener even when some throw or reject, and reports their errors", async () => {
    const emitter = new EventEmitter();
    const calls: string[] = [];
    const errors: string[] = [];
    emitter.on("x", () => {
      calls.push("first");
      throw new Error("sync");
    });
    emitter.on("x", async () => {
      calls.push("second");
      throw new Error("async");
    });
    emitter.on("x", (payload: number) => calls.push(`third ${payload}`));
    safeEmit(emitter, "x", 7, (error) => errors.push((error as Error).message));
    expect(calls).toEqual(["first", "second", "third 7"]);
    await Promise.resolve();
    expect(errors).toEqual(["sync", "async"]);
  });

  it("removes once-listeners before calling them, and survives a reporter that throws", () => {
    const emitter = new EventEmitter();
    let count = 0;
    emitter.once("x", () => {
      count++;
      throw new Error("boom");
    });
    const report = () => {
      throw new Error("reporter bug");
    };
    safeEmit(emitter, "x", undefined, report);
    safeEmit(emitter, "x", undefined, report);
    expect(count).toBe(1);
    expect(emitter.listenerCount("x")).toBe(0);
    safeEmit(emitter, "none", undefined, report);
  });
});
