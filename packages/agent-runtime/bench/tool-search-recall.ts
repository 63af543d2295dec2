// Recall of tool search on the labelled requests (tool-search-requests.json) over the public roster:
// our lexical ranker, its ablations, and plain BM25 as the issue measured it. Used by tool-search.bench.ts.
import { readFileSync } from "node:fs";
import type { MCPToolRanker } from "@agentforge/agent-runtime";
import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { publicRoster } from "@agentforge/test-servers";

export interface LabelledRequest {
  id: number;
  split: "dev" | "test" | "fresh";
  request: string;
  expected: string[];
}

/** The labelled requests (the two files: written before the ranker, and after it was frozen). */
export function labelledRequests(): LabelledRequest[] {
  const read = (name: string) =>
    (JSON.parse(readFileSync(new URL(name, import.meta.url), "utf8")) as { requests: LabelledRequest[] })
      .requests;
  const fresh = (() => {
    try {
      return read("./tool-search-requests-fresh.json");
    } catch {
      return [];
    }
  })();
  return [...read("./tool-search-requests.json"), ...fresh];
}

/** The public roster as registry descriptors. */
export function rosterTools(): MCPToolDescriptor[] {
  return publicRoster().flatMap((server) =>
    server.tools.map((tool) => ({
      identity: `${server.server}.${tool.name}`,
      serverName: server.server,
      toolName: tool.name,
      ...(tool.title !== undefined ? { title: tool.title } : {}),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
    })),
  );
}

/**
 * Plain BM25 (k1 1.2, b 0.75) over one bag of words per tool — identity, description and parameter
 * names, lowercased and split at every non-alphanumeric character — with no stemming, no stop words, no
 * camelCase splitting, no field weights and no vocabulary: the baseline the issue measured.
 */
export function plainBM25Ranker(): MCPToolRanker {
  const tokens = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((t) => t.length > 0);
  return {
    rank(query, tools, { limit }) {
      const docs = tools.map((tool) => {
        const params = Object.keys(
          (tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {},
        );
        const bag = tokens(`${tool.identity} ${tool.description ?? ""} ${params.join(" ")}`);
        const tf = new Map<string, number>();
        for (const t of bag) tf.set(t, (tf.get(t) ?? 0) + 1);
        return { tool, tf, length: bag.length };
      });
      const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
      const q = tokens(query);
      const scored = docs.map((d) => {
        let score = 0;
        for (const term of q) {
          const df = docs.filter((x) => x.tf.has(term)).length;
          const tf = d.tf.get(term) ?? 0;
          if (df === 0 || tf === 0) continue;
          const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
          score += (idf * (tf * 2.2)) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avg));
        }
        return { identity: d.tool.identity, score };
      });
      return scored
        .filter((s) => s.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    },
  };
}

export interface Recall {
  n: number;
  at1: number;
  at5: number;
  misses: { request: LabelledRequest; top: string[] }[];
}

/** Recall@1 and @5 of a ranker on some requests over the roster. */
export async function recallOf(
  ranker: MCPToolRanker,
  tools: readonly MCPToolDescriptor[],
  requests: readonly LabelledRequest[],
): Promise<Recall> {
  let at1 = 0;
  let at5 = 0;
  const misses: Recall["misses"] = [];
  for (const request of requests) {
    const top = (await ranker.rank(request.request, tools, { limit: 5 })).map((r) => r.identity);
    if (request.expected.includes(top[0] ?? "")) at1++;
    if (top.some((id) => request.expected.includes(id))) at5++;
    else misses.push({ request, top });
  }
  const n = requests.length;
  return { n, at1: at1 / n, at5: at5 / n, misses };
}
