import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

describe("public API", () => {
  it("exports exactly these names (a change here needs a changeset)", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_MAX_MESSAGE_BYTES",
        "MAX_CONTENT_CHARS",
        "MAX_LIST_ITEMS",
        "MCPCapabilityError",
        "MCPClientManager",
        "MCPConnectionError",
        "MCPMemoryTokenStore",
        "MCPRequestError",
        "MCPServerNotFoundError",
        "MCPStdioTransport",
        "MCPTimeoutError",
        "REPLY_TOO_LARGE_RPC_CODE",
        "createTransport",
        "discoverAll",
        "discoverTools",
        "openInBrowser",
        "requiresTaskExecution",
        "toolUnavailableReason",
      ]
    `);
  });

  it("every exported error has a code and isInstance", () => {
    const errors = Object.values(api).filter(
      (value): value is typeof api.MCPConnectionError =>
        typeof value === "function" && value.prototype instanceof Error,
    );
    expect(errors.map((e) => e.name).sort()).toEqual([
      "MCPCapabilityError",
      "MCPConnectionError",
      "MCPRequestError",
      "MCPServerNotFoundError",
      "MCPTimeoutError",
    ]);
    for (const ErrorClass of errors) {
      const error = new ErrorClass("x", { code: "CONNECTION_LOST" });
      expect(error.code).toBe("CONNECTION_LOST");
      expect(ErrorClass.isInstance(error)).toBe(true);
    }
  });

  it("the manager subscribes through on() → unsubscribe; it has no emit (a change here needs a changeset)", () => {
    const methods = Object.getOwnPropertyNames(api.MCPClientManager.prototype).sort();
    expect(
      methods.filter((name) =>
        /^(on|off|once|emit|addListener|removeListener|removeAllListeners|listeners|listenerCount|eventNames)$/.test(
          name,
        ),
      ),
    ).toEqual(["on"]);
    expect(Object.getPrototypeOf(api.MCPClientManager.prototype)).toBe(Object.prototype);
  });
});
