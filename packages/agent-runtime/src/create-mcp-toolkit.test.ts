import { MCPConfigError } from "@agentforge/mcp-config";
import { describe, expect, it } from "vitest";
import { createMCPToolkit } from "./create-mcp-toolkit.js";
import { MCPToolkitClosedError } from "./errors.js";

// Nothing here starts a server: discovery is lazy, and these tests never ask for tools before closing.
const roster = {
  servers: [
    { name: "local", transport: "stdio" as const, command: "node", enabled: true },
    { name: "other", transport: "stdio" as const, command: "node", enabled: true },
  ],
  permissions: { helper: ["local.*"] },
};

describe("createMCPToolkit (no I/O)", () => {
  it("starts nothing until tools are asked for, and owns manager, registry, policy and executor", async () => {
    await using toolkit = await createMCPToolkit({ config: roster });
    expect(toolkit.manager.connectionStatus("local").state).toBe("idle");
    expect(toolkit.discovery).toBeUndefined();
    expect(toolkit.executor.registry).toBe(toolkit.registry);
    expect(toolkit.executor.policy).toBe(toolkit.policy);
    expect(toolkit.events).toBe(toolkit.executor.events);
    expect(toolkit.policy.decide("helper", "local.echo").allowed).toBe(true);
    expect(toolkit.policy.decide("helper", "other.echo").allowed).toBe(false);
    expect(toolkit.config.servers.map((s) => s.name)).toEqual(["local", "other"]);
  });

  it("`permissions` replaces the config's section; `servers` keeps only those named", async () => {
    await using toolkit = await createMCPToolkit({
      config: roster,
      permissions: { writer: ["other.*"] },
      servers: ["other"],
    });
    expect(toolkit.policy.decide("helper", "local.echo").allowed).toBe(false);
    expect(toolkit.policy.decide("writer", "other.echo").allowed).toBe(true);
    expect(toolkit.manager.serverNames()).toEqual(["other"]);
  });

  it("each agent's tool search: the roster's tool_search over the toolkit's toolSearch; a reload follows", async () => {
    const withSettings = {
      ...roster,
      permissions: {
        helper: { allow: ["local.*"], tool_search: { always_load: ["local.echo"], max_searches: 5 } },
        other: ["other.*"],
      },
    };
    await using toolkit = await createMCPToolkit({ config: withSettings, toolSearch: { mode: "on" } });
    expect(toolkit.toolSearchSettings("helper")).toEqual({
      mode: "on",
      threshold: { tools: 30, chars: 40_000 },
      alwaysLoad: ["local.echo"],
      maxSearches: 5,
    });
    expect(toolkit.toolSearchSettings("other")).toMatchObject({ mode: "on", alwaysLoad: [], maxSearches: 3 });
    expect(toolkit.createExecutor().toolSearchSettings("helper").maxSearches).toBe(5);
    await toolkit.reload({ ...roster, permissions: { helper: { allow: [], tool_search: { mode: "off" } } } });
    expect(toolkit.toolSearchSettings("helper")).toMatchObject({ mode: "off", maxSearches: 3 });
    await expect(createMCPToolkit({ config: roster, toolSearch: "never" as "on" })).rejects.toThrow(
      /createMCPToolkit: toolSearch: expected "auto", "on", "off"/,
    );
  });

  it("reports a bad roster or bad grants as CONFIG_INVALID before anything starts", async () => {
    await expect(
      createMCPToolkit({ config: { servers: [{ name: "x", transport: "stdio" }] } as never }),
    ).rejects.toSatisfy((error) => MCPConfigError.isInstance(error) && error.code === "CONFIG_INVALID");
    await expect(createMCPToolkit({ config: roster, permissions: { helper: ["*.*"] } })).rejects.toSatisfy(
      (error) => MCPConfigError.isInstance(error) && error.code === "CONFIG_INVALID",
    );
    await expect(createMCPToolkit({ config: roster, discover: "later" as never })).rejects.toThrow(TypeError);
  });

  it("reload swaps the policy the executor checks, keeping the same executor and events", async () => {
    await using toolkit = await createMCPToolkit({ config: roster });
    const { executor, events } = toolkit;
    const changes = await toolkit.reload({ ...roster, permissions: { helper: ["other.*"] } });
    expect(changes.unchanged).toEqual(["local", "other"]);
    expect(toolkit.executor).toBe(executor);
    expect(toolkit.events).toBe(events);
    expect(executor.policy.decide("helper", "local.echo").allowed).toBe(false);
    expect(executor.policy.decide("helper", "other.echo").allowed).toBe(true);
    // A bad section leaves the toolkit as it was.
    await expect(toolkit.reload({ ...roster, permissions: { helper: ["*"] } })).rejects.toSatisfy((error) =>
      MCPConfigError.isInstance(error),
    );
    expect(executor.policy.decide("helper", "other.echo").allowed).toBe(true);
  });

  it("after close, every operation fails with TOOLKIT_CLOSED (nothing is started again)", async () => {
    const toolkit = await createMCPToolkit({ config: roster });
    await toolkit.close();
    await toolkit[Symbol.asyncDispose](); // idempotent
    for (const attempt of [
      () => toolkit.tools("helper"),
      () => toolkit.execute("helper", "local.echo", {}),
      () => toolkit.discover(),
      () => toolkit.health(),
      () => toolkit.reload(roster),
    ]) {
      await expect(attempt()).rejects.toSatisfy(
        (error) => MCPToolkitClosedError.isInstance(error) && error.code === "TOOLKIT_CLOSED",
      );
    }
    expect(toolkit.manager.connectionStatus("local").state).toBe("idle");
  });
});
