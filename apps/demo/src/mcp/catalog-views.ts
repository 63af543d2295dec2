// The views of a server's resources, resource templates and prompts (`agentforge mcp inspect`, REST):
// plain data from mcp-client, bounded again for a terminal or an HTTP answer. Everything here came from a
// server: untrusted, so every text is cut and every list is capped.
import type {
  MCPGetPromptResult,
  MCPPrompt,
  MCPPromptMessage,
  MCPReadResourceResult,
  MCPResource,
  MCPResourceContents,
  MCPResourceTemplate,
} from "@agentforge/mcp-client";

/** Most characters of text and base64 a resource read or a prompt view carries (1 MiB). */
export const MAX_VIEW_CHARS = 1024 * 1024;
/** Most characters of a name, title or description in a list view. */
export const MAX_LABEL_CHARS = 1000;
/** Entries per kind shown by `mcp inspect` (the REST API pages through everything). */
export const INSPECT_LIST_LIMIT = 20;

const cut = (text: string | undefined, max = MAX_LABEL_CHARS): string | undefined =>
  text === undefined ? undefined : text.length > max ? `${text.slice(0, max)}…` : text;

/** One page of a server's resources. */
export interface ResourcePageView {
  server: string;
  resources: MCPResource[];
  /** Pass back as `?cursor=` for the next page; null on the last. */
  nextCursor: string | null;
  /** Malformed entries left out by the client. */
  skipped: number;
  /** The server sent more entries than one page keeps (1000). */
  truncated: boolean;
}

/** One page of a server's prompts. */
export interface PromptPageView {
  server: string;
  prompts: MCPPrompt[];
  nextCursor: string | null;
  skipped: number;
  truncated: boolean;
}

/** A resource read, bounded to `MAX_VIEW_CHARS`. */
export interface ResourceReadView {
  server: string;
  uri: string;
  /** Text parts (cut at the limit) and base64 parts (left out past the limit, see `omitted`). */
  contents: MCPResourceContents[];
  /** Parts left out because the limit was reached (binary parts are never cut). */
  omitted: number;
  truncated: boolean;
  skipped: number;
}

/** A prompt's messages, bounded to `MAX_VIEW_CHARS`. */
export interface PromptView {
  server: string;
  name: string;
  description: string | null;
  messages: MCPPromptMessage[];
  /** Messages left out because the limit was reached. */
  omitted: number;
  truncated: boolean;
  skipped: number;
}

/** What `mcp inspect` lists of a connected server: the first entries of each kind and whether more exist. */
export interface CatalogView {
  resources: CatalogSection<MCPResource> | null;
  resourceTemplates: CatalogSection<MCPResourceTemplate> | null;
  prompts: CatalogSection<MCPPrompt> | null;
}

/** One kind of entry in `CatalogView`; null in `CatalogView` when the server does not offer it. */
export interface CatalogSection<T> {
  items: T[];
  /** More entries exist than shown (a next page, or more than `INSPECT_LIST_LIMIT` on this one). */
  more: boolean;
  /** Why the list could not be read (`code: message`), else null. */
  error: string | null;
}

/** Labels cut to `MAX_LABEL_CHARS`. */
export function boundedResource(resource: MCPResource): MCPResource {
  return labels(resource);
}

function labels<T extends { name: string; title?: string; description?: string }>(entry: T): T {
  const out = { ...entry, name: cut(entry.name) as string };
  if (entry.title !== undefined) out.title = cut(entry.title) as string;
  if (entry.description !== undefined) out.description = cut(entry.description) as string;
  return out;
}

/** A template with its labels cut. */
export function boundedTemplate(template: MCPResourceTemplate): MCPResourceTemplate {
  return labels(template);
}

/** A prompt with its labels (and its arguments' descriptions) cut. */
export function boundedPrompt(prompt: MCPPrompt): MCPPrompt {
  return {
    ...labels(prompt),
    arguments: prompt.arguments.slice(0, 100).map((argument) => {
      const out = { ...argument, name: cut(argument.name) as string };
      if (argument.description !== undefined) out.description = cut(argument.description) as string;
      return out;
    }),
  };
}

/** A resource read kept under `MAX_VIEW_CHARS`: the text part at the limit is cut, later parts left out. */
export function resourceReadView(result: MCPReadResourceResult, max = MAX_VIEW_CHARS): ResourceReadView {
  let budget = max;
  let truncated = result.truncated;
  let omitted = 0;
  const contents: MCPResourceContents[] = [];
  for (const part of result.contents) {
    const size = "text" in part ? part.text.length : part.blob.length;
    if (size <= budget) {
      contents.push(part);
      budget -= size;
    } else if ("text" in part && budget > 0) {
      contents.push({ ...part, text: part.text.slice(0, budget) });
      budget = 0;
      truncated = true;
    } else {
      omitted++;
      truncated = true;
    }
  }
  return {
    server: result.serverName,
    uri: result.uri,
    contents,
    omitted,
    truncated,
    skipped: result.skipped,
  };
}

/** A prompt kept under `MAX_VIEW_CHARS` (text parts counted by length, other parts by their JSON). */
export function promptView(result: MCPGetPromptResult, max = MAX_VIEW_CHARS): PromptView {
  let budget = max;
  let truncated = result.truncated;
  let omitted = 0;
  const messages: MCPPromptMessage[] = [];
  for (const message of result.messages) {
    const content = message.content;
    const text = content.type === "text" && typeof content.text === "string" ? content.text : undefined;
    const size = text !== undefined ? text.length : JSON.stringify(content).length;
    if (size <= budget) {
      messages.push(message);
      budget -= size;
    } else if (text !== undefined && budget > 0) {
      messages.push({ role: message.role, content: { type: "text", text: text.slice(0, budget) } });
      budget = 0;
      truncated = true;
    } else {
      omitted++;
      truncated = true;
    }
  }
  return {
    server: result.serverName,
    name: result.name,
    description: cut(result.description) ?? null,
    messages,
    omitted,
    truncated,
    skipped: result.skipped,
  };
}
