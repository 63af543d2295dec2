// `pnpm bench`: tool search on a large roster — the tool lists of 14 public MCP servers (13 recorded
// from their npm packages, the git server written from its documented interface; see
// tooling/test-servers/rosters/public). Measured side by side in one run:
//   1. characters of tool definitions sent per model request, search off vs auto, over a scripted
//      search → call → answer run per labelled request (the definitions as the OpenAI wire format has
//      them: name, description, JSON Schema of the parameters);
//   2. recall@1 and @5 of the search on the labelled requests (bench/tool-search-requests*.json), the
//      lexical ranker vs plain BM25, per split: `dev` (the ranker was tuned looking at these), `test`
//      (held out while tuning, written at the same time), `fresh` (written after the ranker was frozen);
//   3. the time of one search over the whole roster (a ranker that has analysed the definitions, and a
//      new one that analyses them first).
import {
  createLexicalToolRanker,
  MAX_MODEL_TOOLS,
  MCP_TOOLS_LEFT_OUT,
  type MCPToolCallClient,
  MCPToolExecutor,
  type MCPToolRanker,
} from "@agentforge/agent-runtime";
import { invokeWithTools } from "@agentforge/agent-runtime/langchain";
import { type ScriptContext, ScriptedChatModel } from "@agentforge/agent-runtime/testing";
import { compare, heading, printFigure } from "@agentforge/bench";
import { MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { publicRoster } from "@agentforge/test-servers";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import {
  type LabelledRequest,
  labelledRequests,
  plainBM25Ranker,
  recallOf,
  rosterTools,
} from "./tool-search-recall.js";

const AGENT = "assistant";
const tools = rosterTools();
const requests = labelledRequests();
const servers = publicRoster();

/** An executor over the roster, every tool granted, answering calls in-process (no server is needed to count what a model is sent). */
function rosterExecutor(): MCPToolExecutor {
  const registry = new MCPToolRegistry();
  for (const server of servers) {
    registry.register(
      server.server,
      tools.filter((t) => t.serverName === server.server),
    );
  }
  const client: MCPToolCallClient = {
    callTool: (async () => ({ content: [{ type: "text", text: "ok" }] })) as MCPToolCallClient["callTool"],
    getConfig: (() => ({ transport: "stdio" })) as unknown as MCPToolCallClient["getConfig"],
  };
  const grants = Object.fromEntries([[AGENT, servers.map((s) => `${s.server}.*`)]]);
  return new MCPToolExecutor({
    clientManager: client,
    registry,
    policy: new MCPPermissionPolicy(grants),
    validateArguments: false,
  });
}

/** Characters of tool definitions as the OpenAI wire format has them (name, description, parameters). */
function wireChars(tools: ScriptContext["tools"]): number {
  return tools.reduce(
    (sum, t) =>
      sum +
      JSON.stringify({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }).length,
    0,
  );
}

/** Characters of the tool definitions of one model request. */
function definitionChars(context: ScriptContext): number {
  return wireChars(context.tools);
}

interface RunFigures {
  requests: number[];
  toolsPerRequest: number[];
}

/** One scripted run per labelled request: (search →) call the expected tool → answer. */
async function run(
  mode: "off" | "auto",
  request: LabelledRequest,
  executor: MCPToolExecutor,
): Promise<RunFigures> {
  const figures: RunFigures = { requests: [], toolsPerRequest: [] };
  const record = (c: ScriptContext) => {
    figures.requests.push(definitionChars(c));
    figures.toolsPerRequest.push(c.tools.length);
  };
  const target = (request.expected[0] as string).replace(".", "__");
  const call = (c: ScriptContext) => {
    record(c);
    // The model calls what the search found that answers the request (else the first tool found).
    const found = c.messages.filter((m): m is ToolMessage => m instanceof ToolMessage).at(-1);
    const named = String(found?.content ?? "").match(/^- ([A-Za-z0-9_-]+):/gm) ?? [];
    const candidates = named.map((line) => line.slice(2, -1));
    const wanted = request.expected.map((id) => id.replace(".", "__"));
    const name =
      mode === "off" ? target : (candidates.find((n) => wanted.includes(n)) ?? candidates[0] ?? target);
    return { toolCalls: [{ name, args: {} }] };
  };
  const answer = (c: ScriptContext) => {
    record(c);
    return "done";
  };
  const script =
    mode === "off"
      ? [call, answer]
      : [
          (c: ScriptContext) => {
            record(c);
            return { toolCalls: [{ name: "search_tools", args: { query: request.request } }] };
          },
          call,
          answer,
        ];
  await invokeWithTools(new ScriptedChatModel(script), [new HumanMessage(request.request)], {
    tools: executor.registry.list(),
    executor,
    agent: AGENT,
    toolSearch: mode,
    maxRounds: 3,
  });
  return figures;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function definitions(): Promise<void> {
  heading(
    "tool search: characters of tool definitions per model request (public roster, search off vs auto)",
  );
  const executor = rosterExecutor();
  let leftOut = 0;
  executor.events.on(MCP_TOOLS_LEFT_OUT, (e) => {
    leftOut = e.identities.length;
  });
  const rosterChars = wireChars(
    tools.map((t) => ({
      name: t.identity.replace(".", "__"),
      description: t.description ?? "",
      parameters: executor.inputSchemaOf(t),
    })),
  );
  printFigure("servers / tools in the roster", `${servers.length} / ${tools.length}`);
  printFigure("characters of all their definitions", rosterChars);
  const off: RunFigures = { requests: [], toolsPerRequest: [] };
  const auto: RunFigures = { requests: [], toolsPerRequest: [] };
  for (const request of requests) {
    for (const [mode, into] of [
      ["off", off],
      ["auto", auto],
    ] as const) {
      const figures = await run(mode, request, executor);
      into.requests.push(...figures.requests);
      into.toolsPerRequest.push(...figures.toolsPerRequest);
    }
  }
  const offMean = mean(off.requests);
  const autoMean = mean(auto.requests);
  printFigure(
    "search off: tools bound per request",
    `${Math.max(...off.toolsPerRequest)} (the provider limit, ${MAX_MODEL_TOOLS}; ${leftOut} left out)`,
  );
  printFigure("search off: chars of definitions per request", Math.round(offMean));
  printFigure(
    "search auto: tools bound per request",
    `${mean(auto.toolsPerRequest).toFixed(1)} on average, at most ${Math.max(...auto.toolsPerRequest)}`,
  );
  printFigure("search auto: chars of definitions per request", Math.round(autoMean));
  printFigure("auto / off per request", `${((autoMean / offMean) * 100).toFixed(1)} % (goal ≤ 10 %)`);
  // A run: off is call + answer (2 requests), auto is search + call + answer (3 requests).
  printFigure(
    "per run: auto (3 requests) / off (2 requests)",
    `${Math.round(autoMean * 3)} / ${Math.round(offMean * 2)} chars = ${((autoMean * 3 * 100) / (offMean * 2)).toFixed(1)} %`,
  );
  printFigure("labelled requests run", requests.length);
}

async function recall(): Promise<void> {
  heading("tool search: recall on the labelled requests (public roster, every tool granted)");
  const rankers: [string, MCPToolRanker][] = [
    ["plain BM25 (baseline)", plainBM25Ranker()],
    ["lexical ranker (default)", createLexicalToolRanker()],
    ["  without the vocabulary", createLexicalToolRanker({ vocabulary: false })],
    ["  without stemming", createLexicalToolRanker({ stemming: false })],
  ];
  const splits: [string, LabelledRequest[]][] = [
    ["all", requests],
    ["dev", requests.filter((r) => r.split === "dev")],
    ["test", requests.filter((r) => r.split === "test")],
    ["fresh", requests.filter((r) => r.split === "fresh")],
  ];
  console.log(
    `  ${"ranker".padEnd(28)}${splits.map(([name, set]) => `${name} (${set.length})`.padStart(16)).join("")}`,
  );
  console.log(`  ${"".padEnd(28)}${splits.map(() => "@1 / @5".padStart(16)).join("")}`);
  for (const [name, ranker] of rankers) {
    const cells: string[] = [];
    for (const [, set] of splits) {
      const r = await recallOf(ranker, tools, set);
      cells.push(`${r.at1.toFixed(2)} / ${r.at5.toFixed(2)}`.padStart(16));
    }
    console.log(`  ${name.padEnd(28)}${cells.join("")}`);
  }
  const ours = await recallOf(createLexicalToolRanker(), tools, requests);
  printFigure("goal: recall@5 ≥ 0.85 (all requests)", ours.at5.toFixed(3));
  for (const miss of ours.misses) {
    console.log(
      `    missed (${miss.request.split}): "${miss.request.request}" → ${miss.request.expected[0]}`,
    );
  }
}

async function speed(): Promise<void> {
  const warm = createLexicalToolRanker();
  let i = 0;
  const next = () => (requests[i++ % requests.length] as LabelledRequest).request;
  await compare(
    `tool search: one search over the ${tools.length} tools of the roster (a labelled request each time)`,
    [
      { name: "lexical ranker", fn: () => warm.rank(next(), tools, { limit: 5 }) },
      // A new ranker analyses every definition first (a warm one has them cached per descriptor).
      { name: "new ranker (cold)", fn: () => createLexicalToolRanker().rank(next(), tools, { limit: 5 }) },
    ],
  );
}

await definitions();
await recall();
await speed();
