// syncRegistry never lets a failure reach the manager, and never drops it: with no onError it becomes a
// process warning. The manager here is our own `on` (the one method syncRegistry needs), fed a tool list
// whose descriptor throws when read — what a broken proxy or a bug upstream could hand over.
import type { DiscoveredTool } from "@agentforge/mcp-client";
import { MCPToolRegistry } from "@agentforge/mcp-permissions";
import { afterEach, describe, expect, it } from "vitest";
import { syncRegistry } from "./sync-registry.js";

type Listener = (event: { serverName: string; tools: DiscoveredTool[] }) => void;

function manager() {
  let listener: Listener | undefined;
  return {
    on: ((_event: "toolsChanged", fn: Listener) => {
      listener = fn;
      return () => {
        listener = undefined;
      };
    }) as unknown as Parameters<typeof syncRegistry>[0]["on"],
    send: (event: { serverName: string; tools: DiscoveredTool[] }) => listener?.(event),
  };
}

const exploding = {
  get identity(): string {
    throw new Error("a descriptor that cannot be read");
  },
} as unknown as DiscoveredTool;

const warnings: Error[] = [];
const onWarning = (warning: Error) => {
  if ((warning as { code?: string }).code === "AGENTFORGE_LISTENER_ERROR") warnings.push(warning);
};
process.on("warning", onWarning);
afterEach(() => {
  warnings.length = 0;
});

describe("syncRegistry", () => {
  it("hands a failure to onError, naming the server; nothing reaches the manager", () => {
    const source = manager();
    const failures: string[] = [];
    syncRegistry(source, new MCPToolRegistry(), {
      onError: (error, serverName) => failures.push(`${serverName}: ${(error as Error).message}`),
    });
    expect(() => source.send({ serverName: "files", tools: [exploding] })).not.toThrow();
    expect(failures).toEqual(["files: a descriptor that cannot be read"]);
  });

  it("without onError the failure is a process warning, not silence", async () => {
    const source = manager();
    syncRegistry(source, new MCPToolRegistry());
    expect(() => source.send({ serverName: "files", tools: [exploding] })).not.toThrow();
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]?.message).toContain('syncRegistry toolsChanged of server "files"');
    expect(warnings[0]?.message).toContain("a descriptor that cannot be read");
  });
});
