/**
 * Resources and prompts of a server, as plain data (never SDK objects). Read loosely: an entry that is
 * not usable (no string `uri`/`name`) is skipped and counted, never a reason to fail the whole list.
 */

/** Most entries kept from one page of `resources/list`, `resources/templates/list` or `prompts/list`. */
export const MAX_LIST_ITEMS = 1000;
/** Most characters of text and base64 data kept from one `resources/read` or `prompts/get` (8 MiB). */
export const MAX_CONTENT_CHARS = 8 * 1024 * 1024;

/** Options of the list methods (`listResources`, `listResourceTemplates`, `listPrompts`). */
export interface MCPListOptions {
  /** The `nextCursor` of the previous page (absent: the first page). */
  cursor?: string;
  /** Abandon the request (`notifications/cancelled` is sent). */
  signal?: AbortSignal;
}

/** Options of `readResource` and `getPrompt`. */
export interface MCPReadOptions {
  /** Abandon the request (`notifications/cancelled` is sent). */
  signal?: AbortSignal;
}

/** What every page shares. */
export interface MCPPage {
  /** The cursor of the next page, when there is one. */
  nextCursor?: string;
  /** Entries skipped because they were malformed (not an object, no string `uri`/`name`...). */
  skipped: number;
  /** The page had more than `MAX_LIST_ITEMS` entries; the rest were left out. */
  truncated: boolean;
}

/** One resource a server offers. */
export interface MCPResource {
  /** The server's name. */
  serverName: string;
  /** The resource's URI (the key for `readResource`). */
  uri: string;
  /** Its name. */
  name: string;
  /** Display title. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its MIME type, when known. */
  mimeType?: string;
  /** Its size in bytes, when the server says. */
  size?: number;
}

/** A page of `listResources`. */
export interface MCPResourcePage extends MCPPage {
  /** The resources of this page. */
  resources: MCPResource[];
}

/** A parameterized resource (RFC 6570 URI template). */
export interface MCPResourceTemplate {
  /** The server's name. */
  serverName: string;
  /** The URI template, e.g. `demo://resource/{id}`. */
  uriTemplate: string;
  /** Its name. */
  name: string;
  /** Display title. */
  title?: string;
  /** What it is. */
  description?: string;
  /** The MIME type of resources made from it, when known. */
  mimeType?: string;
}

/** A page of `listResourceTemplates`. */
export interface MCPResourceTemplatePage extends MCPPage {
  /** The templates of this page. */
  resourceTemplates: MCPResourceTemplate[];
}

/** One part of a resource read: text, or binary data as base64. */
export type MCPResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** The result of `readResource`. */
export interface MCPReadResourceResult {
  /** The server's name. */
  serverName: string;
  /** The URI that was read. */
  uri: string;
  /** Its parts (a resource may have several, e.g. a folder). */
  contents: MCPResourceContents[];
  /**
   * More than `MAX_CONTENT_CHARS` characters came back: the text part at the limit was cut, binary parts
   * past it were left out.
   */
  truncated: boolean;
  /** Parts skipped because they were malformed (no string `uri`, neither `text` nor `blob`). */
  skipped: number;
}

/** One argument of a prompt. */
export interface MCPPromptArgument {
  /** Its name (the key in `getPrompt`'s `args`). */
  name: string;
  /** What it is. */
  description?: string;
  /** Whether it must be given. */
  required?: boolean;
}

/** One prompt a server offers. */
export interface MCPPrompt {
  /** The server's name. */
  serverName: string;
  /** The prompt's name (the key for `getPrompt`). */
  name: string;
  /** Display title. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** Its arguments (strings). */
  arguments: MCPPromptArgument[];
}

/** A page of `listPrompts`. */
export interface MCPPromptPage extends MCPPage {
  /** The prompts of this page. */
  prompts: MCPPrompt[];
}

/** One content part of a prompt message. `text` parts are typed; others (image, audio, resource) are kept as data. */
export type MCPPromptContent = { type: "text"; text: string } | { type: string; [field: string]: unknown };

/** One message of a prompt. */
export interface MCPPromptMessage {
  /** Who says it. */
  role: "user" | "assistant";
  /** What is said. */
  content: MCPPromptContent;
}

/** The result of `getPrompt`. */
export interface MCPGetPromptResult {
  /** The server's name. */
  serverName: string;
  /** The prompt's name. */
  name: string;
  /** What the prompt is for, when the server says. */
  description?: string;
  /** The messages, in order. */
  messages: MCPPromptMessage[];
  /** More than `MAX_LIST_ITEMS` messages or `MAX_CONTENT_CHARS` characters came back; the rest was cut. */
  truncated: boolean;
  /** Messages skipped because they were malformed (unknown role, no content object). */
  skipped: number;
}
