/**
 * Turning raw failures (spawn errors, SDK errors, fetch errors) into classified client errors with a
 * fix hint. Every text that may come from outside goes through the server's redactor.
 */
import { cleanText, type EnvSource, MCPError, type MCPServerConfig } from "@agentforge/mcp-config";
import {
  OAuthError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
} from "@modelcontextprotocol/client";
import {
  MCPConnectionError,
  type MCPConnectionErrorCode,
  type MCPConnectionKind,
  MCPRequestError,
  MCPTimeoutError,
} from "../../errors.js";
import type { MCPStdioTransport, ReplyTooLargeData } from "../../mcp-stdio-transport.js";
import { AccessTokenRejectedError } from "../auth/http-auth.js";
import { type Redactor, safeCause } from "../shared/redactor.js";
import { shellCommandLine } from "../shared/shell-quote.js";

/** How much of the stderr log a start-up error message ends with. */
export const STDERR_TAIL_CHARS = 4000;

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME"]);
const TLS_CODE = /CERT|SSL|TLS|EPROTO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ALTNAME/i;

/** Every (code, message) pair in an error's cause chain. */
function chain(error: unknown): { code: unknown; message: string; error: unknown }[] {
  const out: { code: unknown; message: string; error: unknown }[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (typeof current !== "object") break;
    const record = current as { code?: unknown; message?: unknown; cause?: unknown };
    out.push({
      code: record.code,
      message: typeof record.message === "string" ? record.message : "",
      error: current,
    });
    current = record.cause;
  }
  return out;
}

/** The errno-like string code of an error or of one of its causes. */
export function systemCode(error: unknown): string | undefined {
  for (const link of chain(error)) {
    // The SDK's own codes (SdkError, OAuthError) are not system codes: look at their causes.
    if (SdkError.isInstance(link.error) || OAuthError.isInstance(link.error)) continue;
    if (typeof link.code === "string") return link.code;
  }
  return undefined;
}

/** The HTTP status an SDK transport error carries (StreamableHTTPError, SseError), if any. */
export function httpStatusOf(error: unknown): number | undefined {
  for (const link of chain(error)) {
    if (ProtocolError.isInstance(link.error)) continue;
    if (SdkHttpError.isInstance(link.error)) return link.error.status;
    if (typeof link.code === "number" && link.code >= 100 && link.code < 600) return link.code;
  }
  return undefined;
}

/** Whether an SDK error is a local request timeout (not a server-sent -32001). */
export function isSdkTimeout(error: unknown): boolean {
  return (
    SdkError.isInstance(error) &&
    error.code === SdkErrorCode.RequestTimeout &&
    (typeof (error.data as { timeout?: unknown } | undefined)?.timeout === "number" ||
      /Request timed out|Maximum total timeout/.test(error.message))
  );
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** `\n<header>\n<last 4000 characters of stderr>` — what every stdio error message ends with. */
export function stderrSection(serverName: string, stdio: MCPStdioTransport): string {
  const tail = stdio.stderrTail(STDERR_TAIL_CHARS);
  const where = stdio.stderrLogPath ? ` (${stdio.stderrLogPath})` : "";
  const logProblem = stdio.stderrLogError
    ? ` [the log file could not be written: ${stdio.stderrLogError}]`
    : "";
  if (!tail) return `\nstderr of "${serverName}"${where} was empty.${logProblem}`;
  return `\nLast ${STDERR_TAIL_CHARS} characters of the stderr of "${serverName}"${where}${logProblem}:\n${tail}`;
}

/** Where the stderr section of a stdio error message starts (see `stderrSection`), or -1. */
function stderrSectionStart(message: string): number {
  const match = /\n(?:Last \d+ characters of the stderr of "|stderr of ")/.exec(message);
  return match ? match.index : -1;
}

/**
 * The message of a connection attempt refused during backoff, cause first: what failed and why (the
 * last failure's own words), then the retry state, then the last failure's fix and the stderr section
 * it ended with. `lastMessage` is the message of the last failed attempt.
 */
export function backoffMessage(lastMessage: string, waitMs: number, failures: number): string {
  const sectionAt = stderrSectionStart(lastMessage);
  const head = sectionAt === -1 ? lastMessage : lastMessage.slice(0, sectionAt);
  const section = sectionAt === -1 ? "" : lastMessage.slice(sectionAt);
  // Our own fix is the last sentence of the head; anything a server said comes before it.
  const fixAt = head.lastIndexOf(" Fix: ");
  const cause = (fixAt === -1 ? head : head.slice(0, fixAt)).trimEnd().replace(/\.$/, "");
  const fix = fixAt === -1 ? "" : head.slice(fixAt);
  const retry = `not retried for another ${Math.ceil(waitMs)} ms (backoff after ${failures} failed attempt${failures === 1 ? "" : "s"})`;
  return `${cause}; ${retry}.${fix}${section}`;
}

function exitDescription(stdio: MCPStdioTransport): string {
  if (stdio.stdoutClosed) return "closed its stdout but kept running (the process was ended)";
  if (stdio.signalCode) return `was killed by ${stdio.signalCode}`;
  if (stdio.exitCode !== null && stdio.exitCode !== undefined) return `exited with code ${stdio.exitCode}`;
  return "closed its stdio";
}

/** Longest command line a "run it by hand" hint shows (longer ones are cut with a marker). */
export const MAX_COMMAND_LINE_CHARS = 2000;

/**
 * A stdio server's command and arguments as one line to paste into a POSIX shell: each word with the
 * values of the variables its config reads redacted (never a secret), then shell-quoted, then passed
 * through the cleaner used for server text (one line, no control characters; bounded).
 */
export function runByHandLine(command: string, args: readonly string[], redactor: Redactor): string {
  const line = shellCommandLine(
    redactor.redact(command),
    args.map((arg) => redactor.redact(arg)),
  );
  return cleanText(line, { lineBreaks: false, maxChars: MAX_COMMAND_LINE_CHARS });
}

/** Context for classifying a stdio start-up failure. */
export interface StdioFailure {
  config: MCPServerConfig & { transport: "stdio" };
  command: string;
  /** The command's arguments (placeholders resolved: redacted before they are shown). */
  args: readonly string[];
  stdio: MCPStdioTransport;
  connectionTimeoutMs: number;
  redactor: Redactor;
}

/** Classify why a stdio server could not be started or did not complete the handshake. */
export function stdioStartupError(error: unknown, failure: StdioFailure): MCPConnectionError {
  if (MCPError.isInstance(error) && MCPConnectionError.isInstance(error)) return error;
  const { config, stdio, redactor } = failure;
  const name = config.name;
  const command = redactor.redact(failure.command);
  const code = systemCode(error);
  const base = {
    serverName: name,
    transport: "stdio" as const,
    cause: safeCause(error, redactor),
    ...(stdio.stderrLogPath ? { stderrLogPath: stdio.stderrLogPath } : {}),
  };
  if (!stdio.pid && code === "ENOENT") {
    return new MCPConnectionError(
      `MCP server "${name}" could not start: command "${command}" was not found (spawn ENOENT). Fix: install it, give its absolute path, or check the PATH the server inherits; for a Node.js script use command \${NODE} with the script as the first argument.`,
      { ...base, code: "COMMAND_NOT_FOUND" },
    );
  }
  if (!stdio.pid && (code === "EACCES" || code === "EPERM")) {
    return new MCPConnectionError(
      `MCP server "${name}" could not start: "${command}" is not executable (spawn ${code}). Fix: make it executable (chmod +x), or run it through its interpreter (command: \${NODE}, args: [the script]).`,
      { ...base, code: "COMMAND_NOT_EXECUTABLE" },
    );
  }
  if (code === "CWD_NOT_FOUND") {
    return new MCPConnectionError(
      `MCP server "${name}" could not start: its ${redactor.redact((error as Error).message)}. Fix: create the folder or correct cwd.`,
      { ...base, code: "SERVER_START_FAILED" },
    );
  }
  if (!stdio.pid) {
    return new MCPConnectionError(
      `MCP server "${name}" could not start "${command}": ${redactor.redact(error instanceof Error ? error.message : String(error))}`,
      { ...base, code: "SERVER_START_FAILED" },
    );
  }
  const noise = stdio.stdoutNoise.length
    ? ` It wrote non-JSON on stdout (${JSON.stringify(stdio.stdoutNoise[0])}): an MCP server must log to stderr only.`
    : "";
  if (isSdkTimeout(error)) {
    return new MCPConnectionError(
      `MCP server "${name}" (pid ${stdio.pid}) did not complete the MCP handshake within ${seconds(failure.connectionTimeoutMs)} (connection_timeout).${noise} Fix: check that "${command}" is an MCP server speaking stdio; raise connection_timeout if it starts slowly.${stderrSection(name, stdio)}`,
      { ...base, code: "HANDSHAKE_TIMEOUT" },
    );
  }
  if (stdio.exited) {
    return new MCPConnectionError(
      `MCP server "${name}" (pid ${stdio.pid}) ${exitDescription(stdio)} before completing the MCP handshake.${noise} Fix: run it by hand to see why (the end of its stderr follows): ${runByHandLine(failure.command, failure.args, redactor)}${stderrSection(name, stdio)}`,
      { ...base, code: "SERVER_EXITED", exitCode: stdio.exitCode ?? null, signal: stdio.signalCode ?? null },
    );
  }
  const reason = redactor.redact(error instanceof Error ? error.message : String(error));
  return new MCPConnectionError(
    `MCP server "${name}" (pid ${stdio.pid}) failed the MCP handshake: ${reason}.${noise}${stderrSection(name, stdio)}`,
    { ...base, code: "SERVER_START_FAILED" },
  );
}

/** Context for classifying an http start-up failure. */
export interface HttpFailure {
  config: MCPServerConfig & { transport: "http" };
  /** The resolved URL. */
  url: string;
  kind: MCPConnectionKind;
  connectionTimeoutMs: number;
  env: EnvSource;
  redactor: Redactor;
  /** Set when the legacy SSE transport was tried as a fallback and failed too. */
  sseTried?: boolean;
}

function shownUrl(url: string, redactor: Redactor): string {
  try {
    const parsed = new URL(url);
    return redactor.redact(`${parsed.origin}${parsed.pathname}`);
  } catch {
    return redactor.redact(url);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Whether the request carried credentials: OAuth or mTLS, or a credential/header variable that is set. */
function credentialsSent(failure: HttpFailure): boolean {
  const auth = failure.config.auth;
  if (auth.type === "oauth" || auth.type === "mtls") return true;
  if ("credentialEnvVar" in auth && auth.credentialEnvVar && failure.env[auth.credentialEnvVar]) return true;
  return Object.values(failure.config.headers).some((variable) => Boolean(failure.env[variable]));
}

function credentialHint(failure: HttpFailure): string {
  const auth = failure.config.auth;
  const names: string[] = [];
  if ("credentialEnvVar" in auth && auth.credentialEnvVar) names.push(auth.credentialEnvVar);
  if (auth.type === "oauth") {
    if (auth.clientIdEnvVar) names.push(auth.clientIdEnvVar);
    if (auth.clientSecretEnvVar) names.push(auth.clientSecretEnvVar);
    if (auth.privateKeyFileEnvVar) names.push(auth.privateKeyFileEnvVar);
  }
  for (const variable of Object.values(failure.config.headers)) names.push(variable);
  if (names.length === 0) return " The config sends no credentials (auth: none); add an auth section.";
  const unset = names.filter((variable) => !failure.env[variable]);
  return unset.length
    ? ` ${unset.join(", ")} ${unset.length === 1 ? "is" : "are"} not set.`
    : ` Check the value of ${names.join(", ")}.`;
}

function serverSaid(error: unknown, redactor: Redactor): string {
  const messages: string[] = [];
  for (const link of chain(error)) {
    const message = link.message.trim();
    if (message && !messages.some((seen) => seen.includes(message))) messages.push(message);
    // The v2 transport keeps an HTTP error's body beside its message.
    const body = SdkHttpError.isInstance(link.error) ? link.error.data.text : undefined;
    if (typeof body === "string" && body.trim()) messages.push(body.trim().slice(0, 1000));
  }
  const text = redactor.redact(messages.join(": ")).replace(/\s+/g, " ").trim();
  return text ? ` (${text.length > 300 ? `${text.slice(0, 300)}…` : text})` : "";
}

/** Classify why an http server could not be reached or did not complete the handshake. */
export function httpStartupError(error: unknown, failure: HttpFailure): MCPConnectionError {
  if (MCPConnectionError.isInstance(error)) return error;
  const { config, redactor } = failure;
  const name = config.name;
  const url = shownUrl(failure.url, redactor);
  const said = serverSaid(error, redactor);
  const base = { serverName: name, transport: failure.kind, cause: safeCause(error, redactor) };
  const make = (code: MCPConnectionErrorCode, message: string, httpStatus?: number) =>
    new MCPConnectionError(message, { ...base, code, ...(httpStatus ? { httpStatus } : {}) });

  if (error instanceof AccessTokenRejectedError) {
    return make(
      "HTTP_UNAUTHORIZED",
      `MCP server "${name}" at ${url} answered 401 Unauthorized: ${error.message}. Fix: export a valid, unexpired token in ${error.variable}.`,
      401,
    );
  }
  if (isSdkTimeout(error)) {
    return make(
      "HANDSHAKE_TIMEOUT",
      `MCP server "${name}" at ${url} did not complete the MCP handshake within ${seconds(failure.connectionTimeoutMs)} (connection_timeout). Fix: check the server is up and the url is its MCP endpoint; raise connection_timeout for slow servers.`,
    );
  }
  const oauthCode = chain(error).find(
    (link) =>
      OAuthError.isInstance(link.error) ||
      typeof (link.error as { errorCode?: unknown }).errorCode === "string",
  );
  if (oauthCode) {
    return make(
      "AUTH_FAILED",
      `OAuth authorization for MCP server "${name}" failed${said}. Fix: check the client id and secret variables, the issuer and the scope in its auth section.`,
    );
  }
  const status = httpStatusOf(error);
  if (status === 401 || error?.constructor?.name === "UnauthorizedError") {
    return make(
      "HTTP_UNAUTHORIZED",
      `MCP server "${name}" at ${url} answered 401 Unauthorized${said}.${credentialHint(failure)}`,
      401,
    );
  }
  if (status === 403) {
    // A scope hint only makes sense when credentials went out (or the server said insufficient_scope).
    // With none, the server refused the request itself: most often its Host/Origin check.
    const scope = chain(error).some((link) => /insufficient_scope/.test(link.message));
    if (scope || credentialsSent(failure)) {
      return make(
        "HTTP_FORBIDDEN",
        `MCP server "${name}" at ${url} answered 403 Forbidden${said}. Fix: the credentials are valid but lack the needed permission or scope.`,
        403,
      );
    }
    return make(
      "HTTP_FORBIDDEN",
      `MCP server "${name}" at ${url} answered 403 Forbidden${said}. No credentials were sent (auth: none, no headers), so no token or permission is at fault: the server refused the request itself, most often by its Host or Origin check (DNS-rebinding protection). The request was sent with Host: ${redactor.redact(hostOf(failure.url))}. Fix: allow that host on the server, or use the host name the server expects in url.`,
      403,
    );
  }
  if (status === 404) {
    const tried = failure.sseTried ? " (tried Streamable HTTP and the legacy HTTP+SSE transport)" : "";
    return make(
      "HTTP_NOT_FOUND",
      `MCP server "${name}": nothing answers MCP at ${url}${tried}: 404 Not Found. Fix: check the url's path (often /mcp, or /sse for old servers).`,
      404,
    );
  }
  if (status !== undefined) {
    return make("HTTP_ERROR", `MCP server "${name}" at ${url} answered HTTP ${status}${said}.`, status);
  }
  const code = systemCode(error);
  const host = (() => {
    try {
      return new URL(failure.url).host;
    } catch {
      return url;
    }
  })();
  if (code && DNS_CODES.has(code)) {
    return make(
      "HTTP_DNS",
      `MCP server "${name}": host ${redactor.redact(host)} does not resolve (${code}). Fix: check the url's host name and this machine's DNS.`,
    );
  }
  // TLS 1.3 servers refuse a client certificate after the handshake: the client only sees the socket
  // closed with no HTTP answer.
  if (config.auth.type === "mtls" && (code === "UND_ERR_SOCKET" || code === "ECONNRESET")) {
    return make(
      "HTTP_TLS",
      `MCP server "${name}": ${redactor.redact(host)} closed the connection right after the TLS handshake (${code}): it most likely refused the client certificate. Fix: check that the certificate named by ${config.auth.certFileEnvVar} is issued by a CA the server trusts and is valid for client authentication.`,
    );
  }
  if (code && NETWORK_CODES.has(code)) {
    return make(
      "HTTP_UNREACHABLE",
      `MCP server "${name}": could not connect to ${redactor.redact(host)} (${code}). Fix: check that the server is running and listening there, and that no firewall or proxy is in the way.`,
    );
  }
  const tlsLink = chain(error).find(
    (link) =>
      (typeof link.code === "string" && TLS_CODE.test(link.code)) ||
      /certificate|TLS|SSL/i.test(link.message),
  );
  if (tlsLink) {
    const detail = typeof tlsLink.code === "string" ? tlsLink.code : redactor.redact(tlsLink.message);
    return make(
      "HTTP_TLS",
      `MCP server "${name}": the TLS handshake with ${redactor.redact(host)} failed (${detail}). Fix: trust the server's CA (auth mtls ca_file_env_var, or NODE_EXTRA_CA_CERTS), and for mTLS check the client certificate and key.`,
    );
  }
  return make("SERVER_START_FAILED", `MCP server "${name}" at ${url} could not be connected${said}.`);
}

/** Context for mapping the failure of one request on a live connection. */
export interface RequestFailure {
  serverName: string;
  method: string;
  toolName?: string;
  kind: MCPConnectionKind;
  stdio: MCPStdioTransport | undefined;
  redactor: Redactor;
  timeoutMs: number;
  elapsedMs: number;
  /** The caller's signal fired. */
  cancelled: boolean;
  /** The max total timeout fired. */
  totalTimeoutMs: number | undefined;
  /** The config setting named in a timeout message (default: tool_timeout for tools/call, else connection_timeout). */
  timeoutSetting?: string;
}

function what(failure: RequestFailure): string {
  return failure.toolName ? `tools/call "${failure.toolName}"` : failure.method;
}

/** JSON-RPC error codes of the 2026-07-28 revision the client reports with their own error code. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const HEADER_MISMATCH = -32020;
const RESOURCE_NOT_FOUND_2025 = -32002;

/** Only what is safe to show of a version a server lists: a short run of visible ASCII. */
const versionText = (value: unknown): string | undefined =>
  typeof value === "string" && /^[\x21-\x7e]{1,32}$/.test(value) ? value : undefined;

function typedRpcError(
  error: ProtocolError,
  failure: RequestFailure,
):
  | {
      code: "PROTOCOL_VERSION_UNSUPPORTED" | "PROTOCOL_HEADER_MISMATCH" | "RESOURCE_NOT_FOUND";
      message: string;
    }
  | undefined {
  const where = `${what(failure)} on MCP server "${failure.serverName}"`;
  if (error.code === UNSUPPORTED_PROTOCOL_VERSION) {
    const listed = (error.data as { supported?: unknown } | undefined)?.supported;
    const versions = Array.isArray(listed) ? listed.slice(0, 8).map(versionText).filter(Boolean) : [];
    return {
      code: "PROTOCOL_VERSION_UNSUPPORTED",
      message: `${where} was refused: the server does not support the protocol revision asked for (it lists ${versions.length ? versions.join(", ") : "none"}). Fix: set protocol_version to auto or to a revision it lists.`,
    };
  }
  if (error.code === HEADER_MISMATCH) {
    return {
      code: "PROTOCOL_HEADER_MISMATCH",
      message: `${where} was refused: the server says the request's MCP headers do not match its body (-32020).`,
    };
  }
  if (
    failure.method === "resources/read" &&
    (error.code === RESOURCE_NOT_FOUND_2025 ||
      // 2026-07-28 (SEP-2164): -32602 with the URI in its data.
      (error.code === ProtocolErrorCode.InvalidParams &&
        typeof (error.data as { uri?: unknown } | undefined)?.uri === "string"))
  ) {
    return { code: "RESOURCE_NOT_FOUND", message: `${where} failed: the server has no such resource.` };
  }
  return undefined;
}

/** Whether a request error means the live connection is gone (so the next use must reconnect). */
export function isConnectionGone(error: unknown, kind: MCPConnectionKind): boolean {
  if (SdkError.isInstance(error) && !SdkHttpError.isInstance(error)) {
    return error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected;
  }
  if (error instanceof Error && error.message === "Not connected") return true;
  if (kind === "stdio") return false;
  const status = httpStatusOf(error);
  if (status === 404 || status === 401) return true; // session expired / token expired
  const code = systemCode(error);
  return (
    (code !== undefined && (NETWORK_CODES.has(code) || DNS_CODES.has(code))) || error instanceof TypeError
  );
}

/** Map the failure of one request on a live connection to a client error. */
export function requestError(error: unknown, failure: RequestFailure): MCPError {
  if (MCPError.isInstance(error)) return error;
  const { serverName, redactor } = failure;
  const base = {
    serverName,
    method: failure.method,
    ...(failure.toolName ? { toolName: failure.toolName } : {}),
    cause: safeCause(error, redactor),
  };
  if (failure.cancelled) {
    return new MCPRequestError(
      `${what(failure)} on MCP server "${serverName}" was cancelled by the caller after ${Math.round(failure.elapsedMs)} ms; the server was sent notifications/cancelled.`,
      { ...base, code: "REQUEST_CANCELLED" },
    );
  }
  const timeoutCode = failure.toolName ? "TOOL_TIMEOUT" : "REQUEST_TIMEOUT";
  if (failure.totalTimeoutMs !== undefined) {
    return new MCPTimeoutError(
      `${what(failure)} on MCP server "${serverName}" ran past its max total timeout of ${seconds(failure.totalTimeoutMs)} (max_total_timeout); it was cancelled. The connection stays open.`,
      { ...base, code: timeoutCode, timeoutMs: failure.totalTimeoutMs, elapsedMs: failure.elapsedMs },
    );
  }
  if (isSdkTimeout(error)) {
    const setting = failure.timeoutSetting ?? (failure.toolName ? "tool_timeout" : "connection_timeout");
    return new MCPTimeoutError(
      `${what(failure)} on MCP server "${serverName}" did not answer within ${seconds(failure.timeoutMs)} (${setting}); it was cancelled. The connection stays open.`,
      { ...base, code: timeoutCode, timeoutMs: failure.timeoutMs, elapsedMs: failure.elapsedMs },
    );
  }
  if (ProtocolError.isInstance(error)) {
    const data = error.data as Partial<ReplyTooLargeData> | undefined;
    if (data?.reason === "REPLY_TOO_LARGE") {
      return new MCPRequestError(
        `${what(failure)}: MCP server "${serverName}" replied with ${data.replyBytes} bytes, over the limit of ${data.limitBytes} bytes (max_message_bytes). The reply was discarded and the server stays usable. Fix: ask the tool for less data, or raise max_message_bytes for this server.`,
        {
          ...base,
          code: "REPLY_TOO_LARGE",
          ...(data.limitBytes !== undefined ? { limitBytes: data.limitBytes } : {}),
          ...(data.replyBytes !== undefined ? { replyBytes: data.replyBytes } : {}),
        },
      );
    }
    // The SDK's own output-schema checks (2026 callTool): InvalidParams for content that breaks the
    // schema, InvalidRequest for a missing structuredContent.
    if (
      /output ?schema|structured content/i.test(error.message) &&
      (error.code === ProtocolErrorCode.InvalidParams || error.code === ProtocolErrorCode.InvalidRequest)
    ) {
      return new MCPRequestError(
        `${what(failure)} on MCP server "${serverName}" returned a reply that does not match the tool's output schema: ${redactor.redact(error.message)}`,
        { ...base, code: "INVALID_REPLY" },
      );
    }
    const typed = typedRpcError(error, failure);
    if (typed) return new MCPRequestError(typed.message, { ...base, code: typed.code, rpcCode: error.code });
    // Whatever code the server sent (-32000 included), the connection is fine: an RPC error.
    return new MCPRequestError(
      `${what(failure)} on MCP server "${serverName}" failed: ${redactor.redact(error.message)}`,
      { ...base, code: "RPC_ERROR", rpcCode: error.code },
    );
  }
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.InputRequiredRoundsExceeded) {
    return new MCPRequestError(
      `${what(failure)} on MCP server "${serverName}" asked for more input rounds than the client allows; it was stopped.`,
      { ...base, code: "INPUT_ROUNDS_EXCEEDED" },
    );
  }
  if (
    SdkError.isInstance(error) &&
    (error.code === SdkErrorCode.InvalidResult || error.code === SdkErrorCode.UnsupportedResultType)
  ) {
    // The SDK's own checks of a reply: an output schema not met, a result of an unknown type.
    return new MCPRequestError(
      `${what(failure)} on MCP server "${serverName}" returned a reply that is not valid: ${redactor.redact(error.message)}`,
      { ...base, code: "INVALID_REPLY" },
    );
  }
  if (isConnectionGone(error, failure.kind)) {
    const stdio = failure.stdio;
    if (stdio) {
      return new MCPConnectionError(
        `MCP server "${serverName}" (pid ${stdio.pid}) ${exitDescription(stdio)} while ${what(failure)} was in flight; the call failed. The next call starts the server again.${stderrSection(serverName, stdio)}`,
        {
          ...base,
          code: "CONNECTION_LOST",
          transport: "stdio",
          exitCode: stdio.exitCode ?? null,
          signal: stdio.signalCode ?? null,
          ...(stdio.stderrLogPath ? { stderrLogPath: stdio.stderrLogPath } : {}),
        },
      );
    }
    const status = httpStatusOf(error);
    return new MCPConnectionError(
      `The connection to MCP server "${serverName}" (${failure.kind}) was lost while ${what(failure)} was in flight${serverSaid(error, redactor)}; the call failed. The next call reconnects.`,
      {
        ...base,
        code: "CONNECTION_LOST",
        transport: failure.kind,
        ...(status ? { httpStatus: status } : {}),
      },
    );
  }
  const name = error instanceof Error ? error.name : "";
  if (name === "ZodError" || name === "$ZodError") {
    return new MCPRequestError(
      `${what(failure)} on MCP server "${serverName}" returned a reply that is not a valid MCP result.`,
      { ...base, code: "INVALID_REPLY" },
    );
  }
  return new MCPRequestError(
    `${what(failure)} on MCP server "${serverName}" failed: ${redactor.redact(error instanceof Error ? error.message : String(error))}`,
    { ...base, code: "RPC_ERROR" },
  );
}
