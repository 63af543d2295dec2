/**
 * Loose readers of resources/* and prompts/* replies: untrusted input in, plain bounded data out.
 * Malformed entries are skipped and counted; oversized replies are cut and flagged.
 */
import {
  MAX_CONTENT_CHARS,
  MAX_LIST_ITEMS,
  type MCPGetPromptResult,
  type MCPPage,
  type MCPPrompt,
  type MCPPromptArgument,
  type MCPPromptContent,
  type MCPPromptMessage,
  type MCPPromptPage,
  type MCPReadResourceResult,
  type MCPResource,
  type MCPResourceContents,
  type MCPResourcePage,
  type MCPResourceTemplate,
  type MCPResourceTemplatePage,
} from "../../resources.js";

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Thrown when a reply has not even the list the method promises (mapped to INVALID_REPLY). */
export class MalformedReply extends Error {}

function page<T>(
  reply: unknown,
  key: string,
  read: (entry: Obj) => T | undefined,
  maxItems: number,
): { items: T[] } & MCPPage {
  const list = isObject(reply) ? reply[key] : undefined;
  if (!Array.isArray(list)) throw new MalformedReply(`the reply has no ${key} array`);
  const items: T[] = [];
  let skipped = 0;
  const truncated = list.length > maxItems;
  for (const entry of list.slice(0, maxItems)) {
    const item = isObject(entry) ? read(entry) : undefined;
    if (item === undefined) skipped++;
    else items.push(item);
  }
  const out: { items: T[] } & MCPPage = { items, skipped, truncated };
  const cursor = isObject(reply) ? reply.nextCursor : undefined;
  if (typeof cursor === "string" && cursor !== "") out.nextCursor = cursor;
  return out;
}

function optional<T extends object>(target: T, fields: Partial<T>): T {
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (target as Obj)[key] = value;
  }
  return target;
}

/** A page of `resources/list`. */
export function readResourcePage(
  serverName: string,
  reply: unknown,
  maxItems = MAX_LIST_ITEMS,
): MCPResourcePage {
  const { items, ...rest } = page<MCPResource>(
    reply,
    "resources",
    (entry) => {
      const uri = str(entry.uri);
      const name = str(entry.name);
      if (uri === undefined || name === undefined) return undefined;
      const size = typeof entry.size === "number" && Number.isFinite(entry.size) ? entry.size : undefined;
      return optional<MCPResource>(
        { serverName, uri, name },
        {
          title: str(entry.title),
          description: str(entry.description),
          mimeType: str(entry.mimeType),
          size,
        },
      );
    },
    maxItems,
  );
  return { resources: items, ...rest };
}

/** A page of `resources/templates/list`. */
export function readResourceTemplatePage(
  serverName: string,
  reply: unknown,
  maxItems = MAX_LIST_ITEMS,
): MCPResourceTemplatePage {
  const { items, ...rest } = page<MCPResourceTemplate>(
    reply,
    "resourceTemplates",
    (entry) => {
      const uriTemplate = str(entry.uriTemplate);
      const name = str(entry.name);
      if (uriTemplate === undefined || name === undefined) return undefined;
      return optional<MCPResourceTemplate>(
        { serverName, uriTemplate, name },
        { title: str(entry.title), description: str(entry.description), mimeType: str(entry.mimeType) },
      );
    },
    maxItems,
  );
  return { resourceTemplates: items, ...rest };
}

/** A page of `prompts/list`. */
export function readPromptPage(serverName: string, reply: unknown, maxItems = MAX_LIST_ITEMS): MCPPromptPage {
  const { items, ...rest } = page<MCPPrompt>(
    reply,
    "prompts",
    (entry) => {
      const name = str(entry.name);
      if (name === undefined) return undefined;
      const args: MCPPromptArgument[] = [];
      if (Array.isArray(entry.arguments)) {
        for (const arg of entry.arguments.slice(0, maxItems)) {
          if (!isObject(arg) || typeof arg.name !== "string") continue;
          args.push(
            optional<MCPPromptArgument>(
              { name: arg.name },
              {
                description: str(arg.description),
                required: typeof arg.required === "boolean" ? arg.required : undefined,
              },
            ),
          );
        }
      }
      return optional<MCPPrompt>(
        { serverName, name, arguments: args },
        { title: str(entry.title), description: str(entry.description) },
      );
    },
    maxItems,
  );
  return { prompts: items, ...rest };
}

/** The reply of `resources/read`, bounded to `maxChars` characters of text and base64 data. */
export function readResourceContents(
  serverName: string,
  uri: string,
  reply: unknown,
  maxChars = MAX_CONTENT_CHARS,
): MCPReadResourceResult {
  const list = isObject(reply) ? reply.contents : undefined;
  if (!Array.isArray(list)) throw new MalformedReply("the reply has no contents array");
  const out: MCPReadResourceResult = { serverName, uri, contents: [], truncated: false, skipped: 0 };
  let left = maxChars;
  for (const entry of list) {
    if (!isObject(entry) || typeof entry.uri !== "string") {
      out.skipped++;
      continue;
    }
    const mimeType = str(entry.mimeType);
    const base = mimeType === undefined ? { uri: entry.uri } : { uri: entry.uri, mimeType };
    let part: MCPResourceContents;
    if (typeof entry.text === "string") {
      if (entry.text.length > left) {
        out.truncated = true;
        if (left > 0) out.contents.push({ ...base, text: entry.text.slice(0, left) });
        left = 0;
        continue;
      }
      part = { ...base, text: entry.text };
      left -= entry.text.length;
    } else if (typeof entry.blob === "string") {
      // Cut base64 is no use: a blob that does not fit is left out whole.
      if (entry.blob.length > left) {
        out.truncated = true;
        left = 0;
        continue;
      }
      part = { ...base, blob: entry.blob };
      left -= entry.blob.length;
    } else {
      out.skipped++;
      continue;
    }
    out.contents.push(part);
  }
  return out;
}

function contentSize(content: Obj): number {
  let size = 0;
  for (const value of Object.values(content)) {
    if (typeof value === "string") size += value.length;
    else if (isObject(value)) size += contentSize(value);
  }
  return size;
}

/** The reply of `prompts/get`, bounded to `maxItems` messages and `maxChars` characters. */
export function readPromptResult(
  serverName: string,
  name: string,
  reply: unknown,
  maxItems = MAX_LIST_ITEMS,
  maxChars = MAX_CONTENT_CHARS,
): MCPGetPromptResult {
  const list = isObject(reply) ? reply.messages : undefined;
  if (!Array.isArray(list)) throw new MalformedReply("the reply has no messages array");
  const out: MCPGetPromptResult = {
    serverName,
    name,
    messages: [],
    truncated: list.length > maxItems,
    skipped: 0,
  };
  const description = isObject(reply) ? str(reply.description) : undefined;
  if (description !== undefined) out.description = description;
  let left = maxChars;
  for (const entry of list.slice(0, maxItems)) {
    if (
      !isObject(entry) ||
      (entry.role !== "user" && entry.role !== "assistant") ||
      !isObject(entry.content) ||
      typeof entry.content.type !== "string"
    ) {
      out.skipped++;
      continue;
    }
    const size = contentSize(entry.content);
    if (size > left) {
      out.truncated = true;
      const text = entry.content.text;
      if (entry.content.type === "text" && typeof text === "string" && left > 0) {
        out.messages.push({ role: entry.role, content: { type: "text", text: text.slice(0, left) } });
      }
      break;
    }
    left -= size;
    // structuredClone: JSON data copied as data ("__proto__" stays an own key).
    const content = structuredClone(entry.content) as MCPPromptContent;
    const message: MCPPromptMessage = { role: entry.role, content };
    out.messages.push(message);
  }
  return out;
}
