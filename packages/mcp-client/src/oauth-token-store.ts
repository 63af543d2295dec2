/**
 * Where OAuth logins are kept (`grant: authorization_code`), and what happens when a login is needed.
 * A record holds secrets (tokens, a registered client's secret): a store must keep it away from logs,
 * events and output. The library default is memory only, so a login lasts as long as the process.
 */
import { spawn } from "node:child_process";
import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import { MCPConnectionError } from "./errors.js";
import { browserCommand, loginUrlProblem } from "./internal/opener/browser-opener.js";

/** What is kept for one server after a login. Everything but `url` is secret or may be. */
export interface MCPOAuthRecord {
  /** The server URL the login was made for; a record for another URL is not used. */
  url: string;
  /** The tokens the authorization server issued (with `issuer`, the server that issued them). */
  tokens?: OAuthTokens;
  /** The client registration (dynamic registration, or a client ID metadata document URL). */
  clientInformation?: OAuthClientInformationMixed;
  /** Cached discovery results (protected-resource and authorization-server metadata). */
  discoveryState?: OAuthDiscoveryState;
  /**
   * The authorization server (its metadata `issuer`) the registration and tokens belong to. When the
   * server names another authorization server, neither is used: the client registers anew.
   */
  issuer?: string;
  /**
   * The DPoP key the tokens are bound to (RFC 9449), when the authorization server issued DPoP-bound
   * tokens. Secret like the tokens, and useless apart from them: a store keeps both or neither. A
   * DPoP-bound token whose key is missing is not used (the client refreshes or logs in again).
   */
  dpopKey?: MCPOAuthDpopKey;
}

/** A DPoP signing key as kept in a token store: JWKs (the private one is secret) and its thumbprint. */
export interface MCPOAuthDpopKey {
  /** The JWS algorithm the key signs proofs with (`ES256`, `ES384` or `ES512`). */
  alg: string;
  /** The public key, sent in every proof. */
  publicJwk: Record<string, unknown>;
  /** The private key. Secret: never logged or shown. */
  privateJwk: Record<string, unknown>;
  /** The RFC 7638 SHA-256 thumbprint of the public key (the token's `cnf.jkt`). */
  thumbprint: string;
  /**
   * The authorization server (its metadata `issuer`) the key was made for. A key is never shown to
   * another authorization server: when the server names a new one, a new key is made. A key stored
   * without it counts as made for the record's `issuer`.
   */
  issuer?: string;
}

/**
 * Pluggable storage of OAuth logins, one record per server name. Methods may be sync or async.
 * The app keeps them in files (mode 0600, atomic writes) or the OS keyring; the library keeps them in
 * memory (`MCPMemoryTokenStore`).
 */
export interface MCPOAuthTokenStore {
  get(serverName: string): MCPOAuthRecord | undefined | Promise<MCPOAuthRecord | undefined>;
  set(serverName: string, record: MCPOAuthRecord): void | Promise<void>;
  delete(serverName: string): void | Promise<void>;
}

/** The default token store: a Map, gone when the process ends. */
export class MCPMemoryTokenStore implements MCPOAuthTokenStore {
  readonly #records = new Map<string, MCPOAuthRecord>();

  get(serverName: string): MCPOAuthRecord | undefined {
    const record = this.#records.get(serverName);
    return record ? structuredClone(record) : undefined;
  }

  set(serverName: string, record: MCPOAuthRecord): void {
    this.#records.set(serverName, structuredClone(record));
  }

  delete(serverName: string): void {
    this.#records.delete(serverName);
  }
}

/** What `authorize` is told besides the URL. */
export interface MCPAuthorizeContext {
  /** The server that needs the login. */
  serverName: string;
  /** Where the authorization server will send the browser back to (the library listens there). */
  redirectUrl: string;
}

/**
 * Called when a user has to log in: open `authorizationUrl` in a browser (or show it). The library
 * listens on the loopback redirect URL and completes the login when the browser comes back there.
 */
export type MCPAuthorizeFunction = (
  authorizationUrl: URL,
  context: MCPAuthorizeContext,
) => void | Promise<void>;

/**
 * The default `authorize`: prints the URL on stderr and tries the system browser when there is a
 * desktop (a headless process only prints it). The manager only calls it when stdin is a terminal;
 * otherwise a login fails fast with `AUTH_REQUIRED` ("needs login").
 *
 * The URL comes from the authorization server, so it is untrusted: anything but `https:` (or `http:` to
 * loopback), or a URL with a user name or password, is refused with `MCPConnectionError` `AUTH_FAILED`
 * and neither printed nor opened. The browser is started without a shell (`open`, `xdg-open`, or
 * `rundll32 url.dll,FileProtocolHandler` on Windows), the URL being one argument.
 */
export function openInBrowser(authorizationUrl: URL, context: MCPAuthorizeContext): void {
  const problem = loginUrlProblem(authorizationUrl);
  if (problem) {
    throw new MCPConnectionError(
      `The login URL for MCP server "${context.serverName}" was refused and not opened: ${problem}. Fix: the authorization server's metadata (authorization_endpoint) must name an https URL; ask its operator, or check the server URL in the config.`,
      { code: "AUTH_FAILED", serverName: context.serverName, transport: "streamable-http" },
    );
  }
  process.stderr.write(
    `MCP server "${context.serverName}" needs a login. Open this URL in a browser:\n  ${authorizationUrl.href}\n`,
  );
  const open = browserCommand(process.platform, process.env, authorizationUrl.href);
  if (!open) return;
  const unopened = (error: unknown) =>
    process.stderr.write(
      `(${open.command} could not be started: ${(error as NodeJS.ErrnoException).code ?? "error"}; open the URL above by hand)\n`,
    );
  try {
    const child = spawn(open.command, open.args, { stdio: "ignore", detached: true, shell: false });
    child.on("error", unopened);
    child.unref();
  } catch (error) {
    unopened(error);
  }
}
