import { describe, expect, it } from "vitest";
import { MCPConfigError, MCPError } from "./errors.js";

describe("MCPError", () => {
  it("carries code, cause and name; checks brands across copies", () => {
    const cause = new Error("low level");
    const error = new MCPConfigError("bad", { code: "CONFIG_INVALID", cause, source: "a.yaml" });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("MCPConfigError");
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.cause).toBe(cause);
    expect(MCPConfigError.isInstance(error)).toBe(true);
    expect(MCPError.isInstance(error)).toBe(true);
    expect(MCPConfigError.isInstance(new MCPError("x", { code: "X" }))).toBe(false);
    expect(MCPError.isInstance(new Error("plain"))).toBe(false);
    expect(MCPError.isInstance(null)).toBe(false);
    expect(MCPError.isInstance("MCPError")).toBe(false);
  });

  it("recognises an error from another installed copy by its Symbol.for brand", () => {
    // What a second copy of the package would construct: a different class with the same brand.
    class OtherCopyError extends Error {}
    const foreign = new OtherCopyError("x");
    Object.defineProperty(foreign, Symbol.for("@agentforge/mcp-error:MCPConfigError"), { value: true });
    Object.defineProperty(foreign, Symbol.for("@agentforge/mcp-error:MCPError"), { value: true });
    expect(foreign instanceof MCPConfigError).toBe(false);
    expect(MCPConfigError.isInstance(foreign)).toBe(true);
  });

  it("subclasses of subclasses keep every brand in the chain", () => {
    class CustomError extends MCPConfigError {
      static override readonly errorName = "CustomError";
    }
    const error = new CustomError("x", { code: "CONFIG_INVALID" });
    expect(error.name).toBe("CustomError");
    expect(CustomError.isInstance(error)).toBe(true);
    expect(MCPConfigError.isInstance(error)).toBe(true);
    expect(MCPError.isInstance(error)).toBe(true);
  });

  it("serialises context but not the cause", () => {
    const error = new MCPConfigError("bad", {
      code: "CONFIG_INVALID",
      source: "a.yaml",
      issues: [{ path: "servers[0].name", message: "m", line: 2, column: 5 }],
      cause: new Error("secret-ish internals"),
    });
    const json = error.toJSON();
    expect(json).toMatchObject({
      name: "MCPConfigError",
      code: "CONFIG_INVALID",
      source: "a.yaml",
      path: "servers[0].name",
      line: 2,
      column: 5,
    });
    expect(JSON.stringify(json)).not.toContain("internals");
    expect(error.message).toBe("bad in a.yaml:\n  - line 2, column 5: servers[0].name: m");
  });
});
