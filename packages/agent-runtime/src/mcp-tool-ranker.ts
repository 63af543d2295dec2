import type { MCPToolDescriptor } from "@agentforge/mcp-permissions";
import { MAX_ANALYSED_CHARS } from "./internal/search-text.js";

/** One tool of a ranking: its identity (`<server>.<tool>`) and how well it matches (higher is better). */
export interface MCPRankedTool {
  identity: string;
  score: number;
}

/** What a ranker is asked for. */
export interface MCPToolRankOptions {
  /** Return at most this many tools. */
  limit: number;
  /** Aborted when the search is no longer wanted. */
  signal?: AbortSignal;
}

/**
 * Ranks tools for a search query (`executor.searchTools`). It is only ever given the tools the asking
 * agent may use, and whatever it returns is checked again: identities that were not among `tools` are
 * dropped, so a ranker cannot reveal a tool. The default is the in-process lexical ranker
 * (`createLexicalToolRanker`); an embedding ranker fits the same interface (embed `toolSearchText(tool)`
 * once per tool, the query per search).
 */
export interface MCPToolRanker {
  rank(
    query: string,
    tools: readonly MCPToolDescriptor[],
    options: MCPToolRankOptions,
  ): readonly MCPRankedTool[] | Promise<readonly MCPRankedTool[]>;
}

/** Longest parameter description taken into a tool's search text. */
const MAX_PARAMETER_DESCRIPTION = 300;
/** Most parameters taken into a tool's search text (top level and one level down). */
const MAX_PARAMETERS = 40;

/** A tool's title: `title`, else the older `annotations.title`. */
export function toolTitle(tool: MCPToolDescriptor): string | undefined {
  if (typeof tool.title === "string" && tool.title.length > 0) return tool.title;
  const title = tool.annotations?.title;
  return typeof title === "string" && title.length > 0 ? title : undefined;
}

/** A tool's parameters for search: names and descriptions, top level and one level down (objects in arrays). */
export function toolParameters(tool: MCPToolDescriptor): { name: string; description: string }[] {
  const out: { name: string; description: string }[] = [];
  const visit = (schema: unknown, depth: number) => {
    if (typeof schema !== "object" || schema === null || depth > 1) return;
    const properties = (schema as { properties?: unknown }).properties;
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) return;
    for (const [name, property] of Object.entries(properties)) {
      if (out.length >= MAX_PARAMETERS) return;
      const { description, enum: values } = (property ?? {}) as { description?: unknown; enum?: unknown };
      // The values of a string enum say what the parameter is about ("error", "warning", "info").
      const choices = Array.isArray(values)
        ? values.filter((v): v is string => typeof v === "string").join(" ")
        : "";
      const text = [typeof description === "string" ? description : "", choices].filter(Boolean).join(" ");
      out.push({ name, description: text.slice(0, MAX_PARAMETER_DESCRIPTION) });
      const inner = property as { items?: unknown } | null;
      visit(inner?.items ?? property, depth + 1);
    }
  };
  visit(tool.inputSchema, 0);
  return out;
}

/**
 * The text a tool is found by: its identity's words, title, description and parameter names and
 * descriptions, each bounded. For rankers of your own (e.g. to embed once per tool).
 */
export function toolSearchText(tool: MCPToolDescriptor): string {
  const parts = [
    `${tool.serverName} ${tool.toolName}`,
    toolTitle(tool) ?? "",
    typeof tool.description === "string" ? tool.description.slice(0, MAX_ANALYSED_CHARS) : "",
    ...toolParameters(tool).map((p) => (p.description ? `${p.name}: ${p.description}` : p.name)),
  ];
  return parts.filter((p) => p.length > 0).join("\n");
}
