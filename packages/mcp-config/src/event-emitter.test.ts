import { afterEach, describe, expect, it } from "vitest";
import { MCPEventEmitter } from "./event-emitter.js";

interface Events {
  ping: { n: number };
  pong: string;
}

// The process's real warnings, heard as any program would hear them.
const warnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code === "AGENTFORGE_LISTENER_ERROR") warnings.push(warning);
};
process.on("warning", onWarning);
afterEach(() => {
  warnings.length = 0;
});

describe("MCPEventEmitter", () => {
  it("delivers in subscription order; on() returns the unsubscribe function; once() fires once", () => {
    const emitter = new MCPEventEmitter<Events>();
    const seen: string[] = [];
    const off = emitter.on("ping", ({ n }) => seen.push(`a${n}`));
    emitter.once("ping", ({ n }) => seen.push(`b${n}`));
    emitter.emit("ping", { n: 1 });
    emitter.emit("ping", { n: 2 });
    off();
    emitter.emit("ping", { n: 3 });
    expect(seen).toEqual(["a1", "b1", "a2"]);
    expect(emitter.listenerCount("ping")).toBe(0);
  });

  it("a listener that throws or rejects is reported to onListenerError (with its payload); the others still run", async () => {
    const failures: [unknown, string][] = [];
    const payloads: unknown[] = [];
    const emitter = new MCPEventEmitter<Events>({
      onListenerError: (error, event, payload) => {
        failures.push([error, event]);
        payloads.push(payload);
      },
    });
    const seen: string[] = [];
    emitter.on("pong", () => {
      throw new Error("boom");
    });
    emitter.on("pong", () => Promise.reject(new Error("late")));
    emitter.on("pong", (text) => seen.push(text));
    emitter.emit("pong", "x");
    expect(seen).toEqual(["x"]);
    await expect.poll(() => failures.length).toBe(2);
    expect(failures.map(([e, event]) => `${event}:${(e as Error).message}`)).toEqual([
      "pong:boom",
      "pong:late",
    ]);
    expect(payloads).toEqual(["x", "x"]);
  });

  it("without onListenerError a failure becomes a process warning, never silence", async () => {
    const emitter = new MCPEventEmitter<Events>();
    emitter.on("pong", () => {
      throw new Error("boom");
    });
    emitter.emit("pong", "x");
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]?.message).toContain('A listener of the "pong" event failed (Error: boom)');
  });

  it("a failing onListenerError still reaches the process warnings", async () => {
    const emitter = new MCPEventEmitter<Events>({
      onListenerError: () => {
        throw new Error("handler broke");
      },
    });
    emitter.on("pong", () => {
      throw new Error("boom");
    });
    expect(() => emitter.emit("pong", "x")).not.toThrow();
    await expect.poll(() => warnings.length).toBe(2);
  });

  it("refuses a listener that is not a function", () => {
    const emitter = new MCPEventEmitter<Events>();
    expect(() => emitter.on("ping", 1 as never)).toThrow(TypeError);
  });
});
