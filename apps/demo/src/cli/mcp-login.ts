// `agentforge mcp login <server>` / `agentforge mcp logout <server>`: OAuth logins of remote servers
// (`auth: { type: oauth, grant: authorization_code }`), kept one file per server in <state-dir>/oauth/
// (mode 0600, written atomically). Tokens and registered client secrets never reach the output.
import { type MCPAuthorizeFunction, MCPClientManager, openInBrowser } from "@agentforge/mcp-client";
import { loadMCPConfig } from "@agentforge/mcp-config/node";
import { SHIPPED_CONFIG } from "../app/application.js";
import { appTokenStore } from "../app/file-token-store.js";
import { writeErr, writeJson, writeOut } from "../shared/terminal-safe.js";
import { UsageError } from "../shared/usage-error.js";
import { parseMCPArgs } from "./mcp-args.js";

export const MCP_LOGIN_USAGE = `Usage: agentforge mcp login <name> | agentforge mcp logout <name>
  login <name>         log in to a server with auth type oauth, grant authorization_code: opens (or prints)
                       the login URL, waits for the browser to come back, keeps the tokens in
                       <state-dir>/oauth/<name>.json (mode 0600)
  logout <name>        forget that login (deletes the file)
Options: --config FILE, --state-dir DIR (default .agentforge), --json`;

/** Run `agentforge mcp login|logout <argv...>` (argv starts with the verb); resolves with the exit code. */
export async function mcpLoginCommand(
  argv: string[],
  options: { authorize?: MCPAuthorizeFunction } = {},
): Promise<number> {
  const { values, positionals } = parseMCPArgs(argv);
  if (values.help) {
    process.stdout.write(`${MCP_LOGIN_USAGE}\n`);
    return 0;
  }
  const [verb, name, ...extra] = positionals;
  if ((verb !== "login" && verb !== "logout") || name === undefined || extra.length > 0) {
    throw new UsageError(
      "usage: agentforge mcp login|logout <name> [--config FILE] [--state-dir DIR] [--json]",
    );
  }
  const json = values.json === true;
  const say = (text: string, data: Record<string, unknown>) => (json ? writeJson(data) : writeOut(text));
  const config = await loadMCPConfig(values.config ?? SHIPPED_CONFIG);
  const server = config.servers.find((candidate) => candidate.name === name);
  if (!server) {
    throw new UsageError(
      `no server "${name}" in the config; servers: ${config.servers.map((s) => s.name).join(", ")}`,
    );
  }
  const store = appTokenStore(values["state-dir"] ?? ".agentforge");
  if (verb === "logout") {
    const had = store.get(name) !== undefined;
    store.delete(name);
    say(had ? `Logged out of ${name}.` : `${name} had no login.`, { serverName: name, loggedOut: had });
    return 0;
  }
  if (
    server.transport !== "http" ||
    server.auth.type !== "oauth" ||
    server.auth.grant !== "authorization_code"
  ) {
    throw new UsageError(
      `server "${name}" does not log users in (login needs transport http with auth type oauth, grant authorization_code)`,
    );
  }
  // Logging in is what the user asked for: open the browser (or print the URL) even without a terminal.
  const manager = new MCPClientManager([{ ...server, enabled: true }], {
    tokenStore: store,
    authorize: options.authorize ?? openInBrowser,
    logDir: false,
  });
  try {
    const tools = await manager.listTools(name);
    say(`Logged in to ${name} (${tools.length} tools). The login is kept in ${store.file(name)}.`, {
      serverName: name,
      loggedIn: true,
      toolCount: tools.length,
    });
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    // The message may quote the authorization server (error_description): cleaned before it is shown.
    if (json) writeJson({ error: { code, message } });
    else writeErr(`Login to ${name} failed: ${message}`);
    return 1;
  } finally {
    await manager.closeAll();
  }
}
