// `pnpm bench`: what a confirmed call costs on top of an allowed one — the executor's confirmation step
// (definition digest, binding, argument preview, events) with a handler that answers at once, a call
// covered by a run-wide confirmation, and an answer given ahead (binding check only). In-memory transport,
// so no process or pipe hides it. A person's own answer time is, of course, not in these figures.

import {
  createConfirmationRun,
  MCP_TOOL_CALL_CONFIRMATION_RESOLVED,
  MCPToolExecutor,
} from "@agentforge/agent-runtime";
import { compare, printFigure } from "@agentforge/bench";
import { MCPPermissionPolicy } from "@agentforge/mcp-permissions";
import { inMemoryLocalTools } from "./in-memory-stack.js";

const args = { text: "hello" };

const { client, adapter, registry } = await inMemoryLocalTools();
const executor = new MCPToolExecutor({
  clientManager: adapter,
  registry,
  policy: new MCPPermissionPolicy({ plain: ["mem.*"], careful: { confirm: ["mem.*"] } }),
  confirm: () => ({ decision: "allow" }),
  maxConfirmationsPerRun: Number.MAX_SAFE_INTEGER,
  redactSecrets: (text) => text,
});
let resolved = 0;
executor.events.on(MCP_TOOL_CALL_CONFIRMATION_RESOLVED, () => {
  resolved++;
});
// A run whose first call was confirmed for the whole run: later calls are covered.
const run = createConfirmationRun("bench-run");
await executor.execute("careful", "mem.echo", args, {
  confirmationRun: run,
  confirm: () => ({ decision: "allow", scope: "run" }),
});
// An answer given ahead (a resumed run, an AI SDK approval): its binding, outside any run.
let ahead: { binding: string } | undefined;
await executor
  .execute("careful", "mem.echo", args, { deferConfirmation: true })
  .catch((error: { request?: { binding: string } }) => {
    ahead = error.request;
  });
if (!ahead) throw new Error("no deferred request to answer");
const answer = { decision: "allow" as const, binding: ahead.binding };

const rows = await compare(
  "agent-runtime: a confirmed call vs an allowed one, in-memory transport (echo)",
  [
    { name: "allowed (no confirmation)", fn: () => executor.execute("plain", "mem.echo", args) },
    {
      name: "confirmed per call (handler answers at once)",
      fn: () => executor.execute("careful", "mem.echo", args),
    },
    {
      name: 'covered by scope "run"',
      fn: () => executor.execute("careful", "mem.echo", args, { confirmationRun: run }),
    },
    {
      name: "answer given ahead (binding checked)",
      fn: () => executor.execute("careful", "mem.echo", args, { confirmation: answer }),
    },
  ],
  { rounds: 12 },
);
const [plain, asked, runScope, given] = rows;
const extra = (row: typeof plain) =>
  plain && row ? `${((row.medianMs - plain.medianMs) * 1000).toFixed(1)} µs` : "n/a";
printFigure("confirmation overhead per call, asked (median)", extra(asked));
printFigure('confirmation overhead per call, scope "run" (median)', extra(runScope));
printFigure("confirmation overhead per call, answer given ahead (median)", extra(given));
printFigure("RESOLVED events seen", resolved);
await client.close();
