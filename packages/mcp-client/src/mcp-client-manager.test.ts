import { MCPConfigError, type MCPServerConfig } from "@agentforge/mcp-config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MCPServerNotFoundError } from "./errors.js";
import { MCPClientManager, type MCPClientManagerOptions } from "./mcp-client-manager.js";

// Commands that would fail loudly if anything tried to start them: these tests do no I/O.
const stdio = (name: string, enabled = true): MCPServerConfig => ({
  name,
  enabled,
  transport: "stdio",
  command: "/nonexistent/never-started",
  args: [],
  env: {},
  connectionTimeout: 10,
  toolTimeout: 30,
  resetTimeoutOnProgress: false,
});

describe("MCPClientManager (no I/O)", () => {
  it("lists enabled servers in config order and keeps disabled configs readable", () => {
    const manager = new MCPClientManager([stdio("b"), stdio("off", false), stdio("a")]);
    expect(manager.serverNames()).toEqual(["b", "a"]);
    expect(manager.getConfig("off").enabled).toBe(false);
    expect(manager.connectionStatus("off").state).toBe("disabled");
    expect(manager.connectionStatus("a")).toMatchObject({ state: "idle", failures: 0, toolCount: null });
    expect(manager.cachedTools("a")).toBeUndefined();
  });

  it("rejects duplicate names and malformed entries, naming the field", () => {
    const error = (() => {
      try {
        new MCPClientManager([stdio("a"), stdio("a"), { ...stdio("c"), toolTimeout: 0 }]);
      } catch (caught) {
        return caught;
      }
    })();
    expect(MCPConfigError.isInstance(error)).toBe(true);
    const issues = (error as MCPConfigError).issues.map((issue) => issue.path);
    expect(issues).toEqual(["configs[1].name", "configs[2].toolTimeout"]);
    expect((error as Error).message).toContain('duplicate server name "a"');
  });

  it("rejects bad options naming the option", () => {
    expect(() => new MCPClientManager([], { maxMessageBytes: 10 })).toThrow(/options\.maxMessageBytes/);
    expect(() => new MCPClientManager([], { logDir: 3 as unknown as string })).toThrow(/options\.logDir/);
  });

  it("throws MCPServerNotFoundError for unknown and disabled names before connecting", async () => {
    const manager = new MCPClientManager([stdio("a"), stdio("off", false)]);
    await expect(manager.callTool("nope", "t")).rejects.toSatisfy(
      (error: unknown) =>
        MCPServerNotFoundError.isInstance(error) &&
        error.code === "SERVER_NOT_FOUND" &&
        error.message.includes("configured: a, off"),
    );
    await expect(manager.getClient("off")).rejects.toMatchObject({
      code: "SERVER_DISABLED",
      serverName: "off",
    });
    await expect(manager.listTools("off")).rejects.toMatchObject({ code: "SERVER_DISABLED" });
    expect(manager.connectionStatus("a").state).toBe("idle");
  });

  it("validates callTool arguments", async () => {
    const manager = new MCPClientManager([stdio("a")]);
    await expect(manager.callTool("a", "")).rejects.toThrow(/toolName must be a non-empty string/);
    await expect(manager.callTool("a", "t", [] as unknown as Record<string, unknown>)).rejects.toThrow(
      /args must be a plain object/,
    );
    await expect(manager.callTool("a", "t", {}, { timeoutMs: -1 })).rejects.toThrow(/options\.timeoutMs/);
  });

  it("reports disabled servers as 'disabled' in health checks and caches the result", async () => {
    const manager = new MCPClientManager([stdio("off", false)]);
    const events: string[] = [];
    manager.on("healthChanged", (event) => events.push(`${event.serverName}:${event.health.status}`));
    const health = await manager.healthCheck("off");
    expect(health).toMatchObject({ serverName: "off", status: "disabled", latencyMs: null, toolCount: null });
    expect(manager.lastHealth("off")).toBe(health);
    expect(events).toEqual(["off:disabled"]);
    await expect(manager.healthCheck("zzz")).rejects.toMatchObject({ code: "SERVER_NOT_FOUND" });
  });

  it("checks the resources/prompts arguments and the elicitation option before any I/O", async () => {
    const manager = new MCPClientManager([stdio("a"), stdio("off", false)]);
    await expect(manager.readResource("a", "")).rejects.toThrow(
      "readResource: uri must be a non-empty string",
    );
    await expect(manager.getPrompt("a", "")).rejects.toThrow(
      "getPrompt: promptName must be a non-empty string",
    );
    await expect(manager.getPrompt("a", "p", { n: 1 } as unknown as Record<string, string>)).rejects.toThrow(
      "getPrompt: args.n must be a string",
    );
    await expect(manager.listPrompts("a", { cursor: 5 as unknown as string })).rejects.toThrow(
      "options.cursor must be a string",
    );
    const disabled = await manager.listResources("off").catch((error: unknown) => error);
    expect(MCPServerNotFoundError.isInstance(disabled) && disabled.code).toBe("SERVER_DISABLED");
    expect(manager.connectionStatus("a").state).toBe("idle");
    expect(
      () =>
        new MCPClientManager([], { elicitation: "yes" as unknown as MCPClientManagerOptions["elicitation"] }),
    ).toThrow("options.elicitation must be a function");
    expect(() => new MCPClientManager([], { elicitationTimeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("MCPClientManager events: on(event, listener) → unsubscribe (no I/O)", () => {
  // An unset placeholder fails the connection before anything is spawned: a connectionFailed per use.
  const broken = (): MCPServerConfig => ({
    name: "broken",
    enabled: true,
    transport: "stdio",
    command: "${AGENTFORGE_TEST_UNSET_COMMAND}",
    args: [],
    env: {},
    connectionTimeout: 10,
    toolTimeout: 30,
    resetTimeoutOnProgress: false,
  });
  const make = (options: MCPClientManagerOptions = {}) =>
    new MCPClientManager([broken()], { env: {}, backoff: { initialDelayMs: 0, maxDelayMs: 0 }, ...options });

  it("delivers typed events until the returned function is called; calling it twice is harmless", async () => {
    const manager = make();
    const seen: string[] = [];
    const unsubscribe = manager.on("connectionFailed", (event) => seen.push(event.error.code));
    await expect(manager.callTool("broken", "t")).rejects.toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect(seen).toEqual(["SERVER_MISCONFIGURED"]);
    unsubscribe();
    unsubscribe();
    await expect(manager.callTool("broken", "t")).rejects.toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect(seen).toEqual(["SERVER_MISCONFIGURED"]);
  });

  it("gives each subscription its own handle, even for the same function", async () => {
    const manager = make();
    let calls = 0;
    const listener = () => {
      calls++;
    };
    const first = manager.on("connectionFailed", listener);
    manager.on("connectionFailed", listener);
    await manager.callTool("broken", "t").catch(() => {});
    expect(calls).toBe(2);
    first();
    await manager.callTool("broken", "t").catch(() => {});
    expect(calls).toBe(3);
  });

  it("runs listeners in the order they subscribed", async () => {
    const manager = make();
    const order: string[] = [];
    const first = () => order.push("first");
    manager.on("connectionFailed", first);
    manager.on("connectionFailed", () => order.push("second"));
    manager.on("connectionFailed", first);
    await manager.callTool("broken", "t").catch(() => {});
    expect(order).toEqual(["first", "second", "first"]);
  });

  it("offers no way to emit or to remove a listener but the function on returns, and is not an EventEmitter", () => {
    const manager = make() as unknown as Record<string, unknown>;
    for (const method of ["emit", "once", "off", "removeListener", "removeAllListeners", "listenerCount"]) {
      expect(manager[method], method).toBeUndefined();
    }
    expect(() => make().on("connectionFailed", "nope" as unknown as () => void)).toThrow(/listener/);
  });

  it("contains a listener's throw and rejection: listenerError and onListenerError, the call's own error", async () => {
    const reported: string[] = [];
    const manager = make({
      onListenerError: (_error, event, serverName) => reported.push(`${event}:${serverName}`),
    });
    const announced: string[] = [];
    manager.on("listenerError", (event) => announced.push(`${event.event}:${String(event.error)}`));
    manager.on("connectionFailed", () => {
      throw new Error("sync");
    });
    manager.on("connectionFailed", () => Promise.reject(new Error("async")));
    let reachedLast = false;
    manager.on("connectionFailed", () => {
      reachedLast = true;
    });
    await expect(manager.callTool("broken", "t")).rejects.toMatchObject({ code: "SERVER_MISCONFIGURED" });
    expect(reachedLast).toBe(true);
    await expect.poll(() => announced.length).toBe(2);
    expect(announced).toEqual(["connectionFailed:Error: sync", "connectionFailed:Error: async"]);
    expect(reported).toEqual(["connectionFailed:broken", "connectionFailed:broken"]);
  });

  describe("a listener error nobody hears is a process warning (AGENTFORGE_LISTENER_ERROR)", () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => {
      if ((warning as { code?: string }).code === "AGENTFORGE_LISTENER_ERROR") warnings.push(warning.message);
    };
    beforeEach(() => {
      warnings.length = 0;
      process.on("warning", onWarning);
    });
    afterEach(() => {
      process.off("warning", onWarning);
    });

    it("with no listenerError listener and no onListenerError: a throw and a rejection", async () => {
      const manager = make();
      manager.on("connectionFailed", () => {
        throw new Error("sync");
      });
      manager.on("connectionFailed", async () => {
        throw new Error("async");
      });
      await expect(manager.callTool("broken", "t")).rejects.toMatchObject({ code: "SERVER_MISCONFIGURED" });
      await expect.poll(() => warnings.length).toBe(2);
      expect(warnings.sort()).toEqual([
        'A listener of the "MCPClientManager connectionFailed" event failed (Error: async); the event was delivered to the other listeners.',
        'A listener of the "MCPClientManager connectionFailed" event failed (Error: sync); the event was delivered to the other listeners.',
      ]);
    });

    it("a listenerError listener that throws, and an onListenerError that throws", async () => {
      const manager = make({
        onListenerError: () => {
          throw new Error("handler broke");
        },
      });
      manager.on("listenerError", () => {
        throw new Error("listenerError listener broke");
      });
      manager.on("connectionFailed", () => {
        throw new Error("sync");
      });
      await expect(manager.callTool("broken", "t")).rejects.toMatchObject({ code: "SERVER_MISCONFIGURED" });
      await expect.poll(() => warnings.length).toBe(3);
      expect(warnings.join("\n")).toContain("(Error: listenerError listener broke)");
      expect(warnings.join("\n")).toContain("(Error: handler broke)");
      expect(warnings.join("\n")).toContain("(Error: sync)");
    });

    it("none when the error is heard (listenerError or onListenerError)", async () => {
      const heard: unknown[] = [];
      const manager = make({ onListenerError: (error) => heard.push(error) });
      manager.on("connectionFailed", () => {
        throw new Error("sync");
      });
      await expect(manager.callTool("broken", "t")).rejects.toMatchObject({ code: "SERVER_MISCONFIGURED" });
      expect(heard).toHaveLength(1);
      // A warning is emitted on the next tick: give it one before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    });
  });
});
