// `pnpm bench`: what the executor itself (registry lookup, policy decision, argument check, events,
// result rendering) costs on top of a raw SDK callTool, over the SDK's in-memory transport, where no
// process or pipe hides it. What users see over stdio, against the official filesystem server, with the
// raw SDK client and the manager side by side, is governed.bench.ts.

import { MCP_TOOL_CALL_COMPLETED, MCPToolExecutor } from "@agentforge/agent-runtime";
import { compare, formatRatio, printFigure } from "@agentforge/bench";
import { MCPPermissionPolicy } from "@agentforge/mcp-permissions";
import { inMemoryLocalTools } from "./in-memory-stack.js";

const args = { text: "hello" };

async function inMemory() {
  const { client, adapter, registry } = await inMemoryLocalTools();
  const executor = new MCPToolExecutor({
    clientManager: adapter,
    registry,
    policy: new MCPPermissionPolicy({ agent: ["mem.*"] }),
  });
  let events = 0;
  executor.events.on(MCP_TOOL_CALL_COMPLETED, () => {
    events++;
  });
  const rows = await compare(
    "agent-runtime: executor vs raw SDK callTool, in-memory transport (echo)",
    [
      { name: "raw SDK client.callTool", fn: () => client.callTool({ name: "echo", arguments: args }) },
      { name: "MCPToolExecutor.execute", fn: () => executor.execute("agent", "mem.echo", args) },
    ],
    { rounds: 12 },
  ); // short alternating turns: GC and JIT pauses land on both variants alike
  const [raw, ours] = rows;
  if (raw && ours) {
    printFigure(
      "executor overhead per call (median)",
      `${((ours.medianMs - raw.medianMs) * 1000).toFixed(1)} µs`,
    );
    printFigure(
      "ratio (no I/O to hide it; over stdio see governed.bench.ts)",
      formatRatio(ours.medianMs, raw.medianMs),
    );
  }
  printFigure("completed events seen", events);
  await client.close();
}

await inMemory();
