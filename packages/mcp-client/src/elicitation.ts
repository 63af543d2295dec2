/**
 * Elicitation: a server asks the user, through the client, for a few values (form mode) or to visit a
 * URL (URL mode) while one of its tools runs. The manager declares the `elicitation` capability only when
 * an `elicitation` handler is given, and answers `decline` whenever the handler fails.
 */

/** A JSON Schema of one requested value (string, number/integer, boolean, or a multi-select array). */
export interface MCPElicitationFieldSchema {
  /** `string`, `number`, `integer`, `boolean` or `array` (multi-select of strings). */
  type: string;
  /** Display label. */
  title?: string;
  /** What the value is for. */
  description?: string;
  /** Any other keyword (`enum`, `oneOf`, `format`, `minimum`, `maxItems`, `default`, ...). */
  [keyword: string]: unknown;
}

/** The flat object schema of a form-mode request: one property per requested value. */
export interface MCPElicitationSchema {
  /** Always `"object"`. */
  type: "object";
  /** Value name -> its schema. */
  properties: Record<string, MCPElicitationFieldSchema>;
  /** Names of the values the user must give. */
  required?: string[];
}

/** A form-mode request: ask the user for the values described by `requestedSchema`. */
export interface MCPElicitationFormRequest {
  /** Form mode. */
  mode: "form";
  /** The server asking. */
  serverName: string;
  /** What to tell the user (written by the server: untrusted text). */
  message: string;
  /** The values to ask for. */
  requestedSchema: MCPElicitationSchema;
}

/** A URL-mode request: ask the user to open `url` (e.g. to sign in or pay) outside the client. */
export interface MCPElicitationUrlRequest {
  /** URL mode. */
  mode: "url";
  /** The server asking. */
  serverName: string;
  /** What to tell the user (written by the server: untrusted text). */
  message: string;
  /** The page the user should open (untrusted: show it, do not fetch it). */
  url: string;
  /** The server's id of this elicitation. */
  elicitationId: string;
}

/** What a server asked for (plain data; never an SDK object). */
export type MCPElicitationRequest = MCPElicitationFormRequest | MCPElicitationUrlRequest;

/** A value the user gave for one requested field. */
export type MCPElicitationValue = string | number | boolean | string[];

/**
 * The user's answer. `accept` with `content` (form mode: checked against the requested schema before it
 * is sent; content that does not match turns into `decline`), `decline` (the user said no) or `cancel`
 * (the user dismissed the request). In URL mode, `accept` means the user agreed to open the URL.
 */
export type MCPElicitationResult =
  | { action: "accept"; content?: Record<string, MCPElicitationValue> }
  | { action: "decline" }
  | { action: "cancel" };

/** What the handler is told besides the request. */
export interface MCPElicitationContext {
  /** The server asking (same as `request.serverName`). */
  serverName: string;
  /**
   * Fires when the answer is no longer wanted: the server cancelled its request, the connection
   * closed, or the handler ran past `elicitationTimeoutMs` (the manager then answers `decline`).
   */
  signal: AbortSignal;
}

/**
 * Asks the user. Throwing, rejecting, answering something invalid or running out of time all answer
 * `decline` to the server; nothing a handler does can break the connection or reach the host.
 */
export type MCPElicitationHandler = (
  request: MCPElicitationRequest,
  context: MCPElicitationContext,
) => Promise<MCPElicitationResult>;
