// `pnpm bench`: the cost of one policy decision with 1,000 patterns (target < 2 µs).
import { compare, printFigure } from "@agentforge/bench";
import { MCPPermissionPolicy } from "@agentforge/mcp-permissions";

const BATCH = 1000;

function patterns(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const server = `server-${i % 100}`;
    if (i % 10 === 0) out.push(`${server}.get_*`);
    else if (i % 10 === 1) out.push(`${server}.*_issue`);
    else out.push(`${server}.tool_${i}`);
  }
  return out;
}

const identities = Array.from({ length: BATCH }, (_, i) =>
  i % 3 === 0
    ? `server-${i % 100}.tool_${i}`
    : i % 3 === 1
      ? `server-${i % 100}.get_${i}`
      : `unknown-${i}.tool`,
);
const small = new MCPPermissionPolicy({ agent: patterns(10) });
const large = new MCPPermissionPolicy({ agent: { allow: patterns(1000), deny: ["server-7.get_secret*"] } });
const exactSet = new Set(patterns(1000));

let sink = 0;
const batch = (decide: (id: string) => boolean) => () => {
  for (const id of identities) if (decide(id)) sink++;
};
const rows = await compare(`mcp-permissions: ${BATCH} decisions per sample`, [
  {
    name: "Set.has (no policy, floor)",
    fn: batch((id) => exactSet.has(id)),
  },
  {
    name: "decide, 10 patterns",
    fn: batch((id) => small.decide("agent", id).allowed),
  },
  {
    name: "decide, 1,000 patterns",
    fn: batch((id) => large.decide("agent", id).allowed),
  },
]);
for (const row of rows)
  printFigure(`${row.name}: per decision`, (row.medianMs * 1000) / BATCH, "µs (median)");
const perDecision = ((rows[2]?.medianMs ?? Number.NaN) * 1000) / BATCH;
printFigure("target: < 2 µs per decision with 1,000 patterns", perDecision < 2 ? "met" : "MISSED");
if (sink < 0) console.log(sink);
